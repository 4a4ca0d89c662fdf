import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { createIntent } from './create.ts';
import { getIntent, listIntents, toIntent, toLine } from './intent-record.ts';
import { issueIntent } from './issue.ts';
import { reconcileById } from './reconcile.ts';
import { resolveOperation } from './resolve.ts';
import { IntentPageQuery } from './resolve-schemas.ts';
import { CreateIntentBody, InvoiceIntent, InvoiceIntentPage, InvoiceLines, VersionBody } from './schemas.ts';
import { moveIntent, type Move } from './transitions.ts';

const tag = 'Invoice intents';
const prefix = '/v1/customer-finance/invoice-intents';

export const createIntentOperation = defineOperation({
  operationId: 'createInvoiceIntent',
  method: 'POST',
  path: prefix,
  summary: 'Create an invoice intent (a draft receipt, invoice or credit note)',
  tag,
  permission: 'invoices.write',
  idempotent: true,
  // Creates that meet on a shared item (a credit ledger, a guide's guard) run again on a fresh read.
  retryOnConflict: true,
  body: CreateIntentBody,
  responses: {
    201: { description: 'The intent, draft, version 1', schema: InvoiceIntent },
    409: {
      description:
        '`guide_already_invoiced`: a named dispatch guide is on another live invoice; `concurrent_update`: other creates kept meeting on the same credit ledger or guide',
    },
    422: {
      description:
        '`connection_not_ready`, `invalid_invoice` (currency, scale, customer, catalogue item, credited invoice, dispatch guides), `total_mismatch`, `credit_exceeds_remaining`',
    },
  },
  handle: async ({ body, caller }) => {
    const { record, writes } = await createIntent(caller.tenantId, body, caller.now);
    return { status: 201, body: toIntent(record), headers: { location: `${prefix}/${record.id}` }, writes, resourceId: record.id };
  },
});

export const listIntentsOperation = defineOperation({
  operationId: 'listInvoiceIntents',
  method: 'GET',
  path: prefix,
  summary: 'List invoice intents, oldest first',
  tag,
  permission: 'invoices.read',
  query: IntentPageQuery,
  responses: { 200: { description: 'A page of intents (with `localState`, only those in it; a page may then hold fewer than `limit` and still have a cursor)', schema: InvoiceIntentPage } },
  handle: async ({ query, caller }) => {
    const page = await listIntents(caller.tenantId, query.after, query.limit, query.localState);
    return { status: 200, body: { items: page.items.map(toIntent), nextCursor: page.nextCursor } };
  },
});

export const getIntentOperation = defineOperation({
  operationId: 'getInvoiceIntent',
  method: 'GET',
  path: `${prefix}/{id}`,
  summary: 'Read an invoice intent',
  tag,
  permission: 'invoices.read',
  params: IdParams,
  responses: { 200: { description: 'The intent', schema: InvoiceIntent } },
  handle: async ({ params, caller }) => ({ status: 200, body: toIntent(await getIntent(caller.tenantId, params.id)) }),
});

export const getLinesOperation = defineOperation({
  operationId: 'listInvoiceIntentLines',
  method: 'GET',
  path: `${prefix}/{id}/lines`,
  summary: 'The lines of an invoice intent, by position',
  tag,
  permission: 'invoices.read',
  params: IdParams,
  responses: { 200: { description: 'The lines', schema: InvoiceLines } },
  handle: async ({ params, caller }) => ({ status: 200, body: { items: (await getIntent(caller.tenantId, params.id)).lines.map(toLine) } }),
});

const moveOperation = (move: Move, operationId: string, summary: string, permission: 'invoices.write' | 'invoices.approve', idempotent: boolean) =>
  defineOperation({
    operationId,
    method: 'POST',
    path: `${prefix}/{id}/${move}`,
    summary,
    tag,
    permission,
    idempotent,
    params: IdParams,
    body: VersionBody,
    responses: {
      200: { description: 'The intent, version + 1', schema: InvoiceIntent },
      409: { description: '`version_mismatch`, or `invalid_state` when the intent’s state does not allow it' },
    },
    handle: async ({ params, body, caller }) => {
      const { record, writes } = await moveIntent(caller.tenantId, params.id, move, body.version, caller.now);
      return { status: 200, body: toIntent(record), writes, resourceId: record.id };
    },
  });

export const reviewOperation = moveOperation('review', 'reviewInvoiceIntent', 'Review a draft intent', 'invoices.write', false);
export const approveOperation = moveOperation('approve', 'approveInvoiceIntent', 'Approve a reviewed intent', 'invoices.approve', true);
export const cancelOperation = moveOperation('cancel', 'cancelInvoiceIntent', 'Cancel an intent before it is submitted', 'invoices.approve', false);

export const issueOperation = defineOperation({
  operationId: 'issueInvoiceIntent',
  method: 'POST',
  path: `${prefix}/{id}/issue`,
  summary: 'Issue an approved intent through the billing provider (once, with correlationId as its reference)',
  tag,
  permission: 'invoices.approve',
  idempotent: true,
  params: IdParams,
  responses: {
    200: { description: 'The intent as it stands after the provider answered (or 8 s passed): issued, provider_recorded, rejected or unknown', schema: InvoiceIntent },
    409: { description: '`invalid_state` (not approved, or another issue is running), `connection_revoked`, `version_mismatch`' },
  },
  handle: async ({ params, caller }) => {
    const { record, writes } = await issueIntent(caller.tenantId, params.id, caller.now, { actorId: caller.member.id, requestId: caller.requestId });
    // The request's audit entry went in with the `submitting` commit, before the provider call.
    return { status: 200, body: toIntent(record), writes, resourceId: record.id, auditedEarlier: true };
  },
});

export const reconcileOperation = defineOperation({
  operationId: 'reconcileInvoiceIntent',
  method: 'POST',
  path: `${prefix}/{id}/reconcile`,
  summary: 'Look the intent’s document up at the provider (never creating one) and settle its state',
  tag,
  permission: 'invoices.write',
  idempotent: true,
  params: IdParams,
  responses: {
    200: { description: 'The intent as it stands after the look-up', schema: InvoiceIntent },
    409: { description: '`invalid_state` (nothing to reconcile), `connection_revoked`' },
    503: { description: '`provider_unavailable`: the provider could not answer; nothing changed' },
  },
  handle: async ({ params, caller }) => {
    const { record, writes } = await reconcileById(caller.tenantId, params.id, caller.now);
    return writes.length > 0 ? { status: 200, body: toIntent(record), writes, resourceId: record.id } : { status: 200, body: toIntent(record) };
  },
});

export const invoicingOperations = [
  createIntentOperation,
  listIntentsOperation,
  getIntentOperation,
  getLinesOperation,
  reviewOperation,
  approveOperation,
  issueOperation,
  reconcileOperation,
  cancelOperation,
  resolveOperation,
];
