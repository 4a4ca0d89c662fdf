import { UnprocessableError } from '../../shared/errors.ts';
import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import type { BillingProvider } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { activeConnection } from '../integrations/connection-record.ts';
import { AnswerWindowOpenError, InvalidTransitionError } from './errors.ts';
import { answerWindowEndsAt } from './guides/answer-window.ts';
import { claimOf, claimScopeOf, DocumentClaimedError } from './guides/claims.ts';
import { getIntent, toIntent, type IntentRecord } from './intent-record.ts';
import { issueDeadlineMs, providerSession } from './provider-calls.ts';
import { ResolveBody } from './resolve-schemas.ts';
import { InvoiceIntent } from './schemas.ts';
import { documentStates, moveTo, NOT_SENT } from './state.ts';

/** The document named is not a guide the provider holds for this intent's type. */
export class InvalidGuideDocumentError extends UnprocessableError {
  constructor(documentId: string, reason: string) {
    super(`The provider document ${documentId} cannot settle this guide: ${reason}.`, 'invalid_guide_document', [{ path: 'body.externalDocumentId', message: reason }]);
  }
}

/**
 * decisions 16: an admin settles a guide held `unknown` (its look-up could not tell candidate
 * shippings apart). A document id: read at the provider, it must be a guide of the intent's
 * type that no other guide intent of the provider company holds; the intent then takes its states
 * as issue would. Null: no guide exists, the intent goes back to `approved` and the reconciler
 * sends it again; accepted only once its look-up ended ambiguous or the answer window of its
 * latest send passed (decisions 19).
 */
export const resolveIntent = async (tenantId: string, intentId: string, documentId: string | null, now: Date, provider?: BillingProvider): Promise<{ record: IntentRecord; writes: Write[] }> => {
  const intent = await getIntent(tenantId, intentId);
  if (intent.localState !== 'unknown') throw new InvalidTransitionError('resolved', intent.localState);
  if (intent.documentKind !== 'dispatch_guide') throw new InvalidTransitionError('resolved by hand (only dispatch guides are)', `${intent.localState} ${intent.documentKind}`);
  const lookup = intent.shippingLookup ? { ...intent.shippingLookup, progress: null, ambiguous: null } : null;
  if (documentId === null) {
    // The provider answered this guide's shipping: a guide exists, and "none" would send a second one.
    if (intent.externalDocumentId) throw new InvalidGuideDocumentError(intent.externalDocumentId, 'the provider answered this guide’s shipping with this guide, so one exists: name it');
    // The provider may still apply the latest send: "none" now would send a second guide (decisions 19).
    const windowEnds = intent.submission ? answerWindowEndsAt(intent.submission, issueDeadlineMs()) : 0;
    if (!intent.shippingLookup?.ambiguous && now.getTime() < windowEnds) throw new AnswerWindowOpenError(new Date(windowEnds).toISOString());
    return moveTo(intent, NOT_SENT, now, { shippingLookup: lookup });
  }
  const connection = await activeConnection(tenantId, intent.connectionId);
  const session = await providerSession(connection);
  const document = await (provider ?? billingProvider(connection.origin)).getDocument(session, documentId);
  if (!document) throw new InvalidGuideDocumentError(documentId, 'the provider has no such document');
  if (document.documentTypeId !== null && document.documentTypeId !== intent.submission?.documentTypeId) {
    throw new InvalidGuideDocumentError(documentId, `it is not of the guide's document type ${intent.submission?.documentTypeId ?? ''}`.trim());
  }
  const holder = await claimOf(claimScopeOf(connection), document.id, intent);
  if (holder !== undefined && holder.intentId !== intent.id) throw new DocumentClaimedError(document.id, holder, tenantId);
  return moveTo(intent, documentStates(document), now, { externalDocumentId: document.id, documentNumber: document.number, shippingLookup: lookup });
};

export const resolveOperation = defineOperation({
  operationId: 'resolveInvoiceIntent',
  method: 'POST',
  path: '/v1/customer-finance/invoice-intents/{id}/resolve',
  summary: 'Settle a dispatch guide held unknown: name the provider’s guide document, or null when none exists',
  tag: 'Invoice intents',
  permission: 'invoices.approve',
  idempotent: true,
  params: IdParams,
  body: ResolveBody,
  responses: {
    200: { description: 'The intent with the document’s states (issued, provider_recorded or rejected), or approved when none exists', schema: InvoiceIntent },
    409: {
      description:
        '`invalid_state` (not an unknown dispatch guide), `answer_window_open` (null before the latest send’s answer window passed, unless its look-up ended ambiguous), `document_claimed` (another guide intent of the provider company holds that document), `connection_revoked`',
    },
    422: { description: '`invalid_guide_document`: the provider has no such document, it is not of the guide’s type, or null names no guide where the provider already answered one' },
    503: { description: '`provider_unavailable`: the provider could not answer; nothing changed' },
  },
  handle: async ({ params, body, caller }) => {
    const { record, writes } = await resolveIntent(caller.tenantId, params.id, body.externalDocumentId, caller.now);
    return { status: 200, body: toIntent(record), writes, resourceId: record.id };
  },
});
