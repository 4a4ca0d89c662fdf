import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getIntent } from '../../../functions/invoicing/intent-record.ts';
import { issueIntent } from '../../../functions/invoicing/issue.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { sandboxProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { approved, invoiceBody, PREFIX, readySandbox } from './support.ts';

const stack = useLocalStack();
const sandbox = () => sandboxProvider();

const eventsOf = async (intentId: string) => {
  const { Items = [] } = await table().send(new ScanCommand({ TableName: tableName(), FilterExpression: 'entity = :e', ExpressionAttributeValues: { ':e': 'event' } }));
  return Items.filter((item) => item.data?.invoiceIntentId === intentId);
};

describe('invoice intents on the sandbox', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let viewer: TestMember;
  let ready: Awaited<ReturnType<typeof readySandbox>>;
  const documentsOf = async (salesId: string) => (await sandbox().recorded({ tenantId: tenant.id, connectionId: ready.connection.id })).documents.filter((d) => d.salesId === salesId);

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator, viewer] = await Promise.all([tenant.member('admin'), tenant.member('operator'), tenant.member('viewer')]);
    ready = await readySandbox(tenant, admin);
  });
  afterEach(() => sandbox().faults.clear());

  it('goes draft → reviewed → approved → issued, once at the provider, with the issued event in the same change', async () => {
    const created = await tenant.call(operator, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, ready.customerId) });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      tenantId: tenant.id,
      connectionId: ready.connection.id,
      documentKind: 'invoice',
      customerId: ready.customerId,
      creditedInvoiceId: null,
      currency: 'CLP',
      minorUnitScale: 0,
      totalMinor: '25990',
      localState: 'draft',
      providerState: 'not_sent',
      taxState: 'not_submitted',
      externalDocumentId: null,
      providerVersion: null,
      version: 1,
    });
    const id = created.body.id;
    const lines = await tenant.call(viewer, 'GET', `${PREFIX}/${id}/lines`);
    expect(lines.body.items).toEqual([
      { position: 1, conceptKey: 'harina', description: 'Harina 1 kg', quantity: '2', unitPriceMinor: '1495', lineTotalMinor: '2990', catalogItemId: null, creditedPosition: null },
      { position: 2, conceptKey: 'flete', description: 'Despacho', quantity: '1', unitPriceMinor: '23000', lineTotalMinor: '23000', catalogItemId: null, creditedPosition: null },
    ]);
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 1 } })).body).toMatchObject({ localState: 'reviewed', version: 2 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 2 } })).body).toMatchObject({ localState: 'approved', version: 3 });
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${id}/issue`);
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body).toMatchObject({ localState: 'issued', providerState: 'accepted', taxState: 'authorized', version: 5 });
    const docs = await documentsOf(created.body.correlationId);
    expect(docs).toHaveLength(1);
    expect(issued.body.externalDocumentId).toBe(docs[0]!.id);
    expect(docs[0]!.documentTypeId).toBe('1');
    expect((await tenant.call(viewer, 'GET', `${PREFIX}/${id}`)).body).toEqual(issued.body);
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toEqual(['finance.invoice.issued']);
    expect(events[0]!.data).toEqual({ invoiceIntentId: id, documentKind: 'invoice', localState: 'issued', providerState: 'accepted', taxState: 'authorized', externalDocumentId: docs[0]!.id });
    // An issued intent cannot be issued, cancelled, reviewed or approved again.
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/issue`)).body.code).toBe('invalid_state');
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/cancel`, { body: { version: 5 } })).status).toBe(409);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/review`, { body: { version: 5 } })).status).toBe(409);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/reconcile`)).status).toBe(409);
    expect(await documentsOf(created.body.correlationId)).toHaveLength(1);
  });

  it('refuses moves the state does not allow (409 invalid_state) and stale versions (409 version_mismatch), changing nothing', async () => {
    const created = await tenant.call(operator, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, ready.customerId) });
    const id = created.body.id;
    const approveDraft = await tenant.call(admin, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 1 } });
    expect([approveDraft.status, approveDraft.body.code]).toEqual([409, 'invalid_state']);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/issue`)).body.code).toBe('invalid_state');
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/reconcile`)).body.code).toBe('invalid_state');
    const stale = await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 7 } });
    expect([stale.status, stale.body.code, stale.body.currentVersion]).toEqual([409, 'version_mismatch', 1]);
    await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 1 } });
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 2 } })).body.code).toBe('invalid_state');
    const cancelled = await tenant.call(admin, 'POST', `${PREFIX}/${id}/cancel`, { body: { version: 2 } });
    expect(cancelled.body).toMatchObject({ localState: 'cancelled', version: 3 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 3 } })).body.code).toBe('invalid_state');
    expect((await tenant.call(viewer, 'GET', `${PREFIX}/${id}`)).body.version).toBe(3);
  });

  it('gives operators create, review and reconcile; approve, issue and cancel are admin only; viewers read; other tenants see 404', async () => {
    const created = await tenant.call(operator, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, ready.customerId) });
    const id = created.body.id;
    expect((await tenant.call(viewer, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, ready.customerId) })).status).toBe(403);
    await tenant.call(operator, 'POST', `${PREFIX}/${id}/review`, { body: { version: 1 } });
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 2 } })).status).toBe(403);
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/cancel`, { body: { version: 2 } })).status).toBe(403);
    await tenant.call(admin, 'POST', `${PREFIX}/${id}/approve`, { body: { version: 2 } });
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${id}/issue`)).status).toBe(403);
    const driver = await tenant.member('driver');
    expect((await tenant.call(driver, 'GET', `${PREFIX}/${id}`)).status).toBe(403);

    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin');
    expect((await other.call(otherAdmin, 'GET', `${PREFIX}/${id}`)).status).toBe(404);
    expect((await other.call(otherAdmin, 'POST', `${PREFIX}/${id}/issue`)).status).toBe(404);
    expect((await other.call(otherAdmin, 'GET', PREFIX)).body.items).toEqual([]);
    // Another tenant's connection is not ready for this one.
    expect((await other.call(otherAdmin, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, null, { documentKind: 'receipt' }) })).body.code).toBe('connection_not_ready');
  });

  it('lists intents a page at a time', async () => {
    const list = await tenant.call(viewer, 'GET', `${PREFIX}?limit=1`);
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const next = await tenant.call(viewer, 'GET', `${PREFIX}?limit=100&after=${list.body.nextCursor}`);
    expect(next.body.items[0].id > list.body.items[0].id).toBe(true);
    expect(next.body.nextCursor).toBeNull();
  });

  it('issues once when 20 issue calls with different keys arrive together: one answers, the others 409', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    sandbox().faults.add({ operation: 'issueDocument', kind: 'slow', delayMs: 300 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await documentsOf(intent.correlationId)).toHaveLength(1);
  });

  it('a provider that applies and then times out leaves the intent unknown; reconcile finds the document, never sending it again', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    sandbox().faults.add({ operation: 'issueDocument', kind: 'timeout_after_apply', times: 1 });
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'unknown', providerState: 'unknown', externalDocumentId: null });
    const reconciled = await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`);
    expect(reconciled.body).toMatchObject({ localState: 'issued', taxState: 'authorized', externalDocumentId: (await documentsOf(intent.correlationId))[0]!.id });
    expect(await documentsOf(intent.correlationId)).toHaveLength(1);
  });

  it('a 500 before applying: reconcile finds nothing and returns the intent to approved; issuing again makes the one document', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    sandbox().faults.add({ operation: 'issueDocument', kind: 'error_before_apply', times: 1 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('unknown');
    const back = await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`);
    expect(back.body).toMatchObject({ localState: 'approved', providerState: 'not_sent', taxState: 'not_submitted' });
    expect(await documentsOf(intent.correlationId)).toHaveLength(0);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('issued');
    expect(await documentsOf(intent.correlationId)).toHaveLength(1);
  });

  it('a provider refusal rejects the intent and emits finance.invoice.rejected', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    sandbox().faults.add({ operation: 'issueDocument', kind: 'refuse', times: 1 });
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'rejected', providerState: 'rejected' });
    expect((await eventsOf(intent.id)).map((e) => e.type)).toEqual(['finance.invoice.rejected']);
  });

  it('never cancels an intent that reached the provider once: 409 invalid_state, and only issuing again (one document) settles it', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    // Before any submission an approved intent can be cancelled; this one is sent first.
    sandbox().faults.add({ operation: 'issueDocument', kind: 'error_before_apply', times: 1 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('unknown');
    const back = await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`);
    expect(back.body).toMatchObject({ localState: 'approved', providerState: 'not_sent' });
    const cancel = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/cancel`, { body: { version: back.body.version } });
    expect([cancel.status, cancel.body.code, cancel.body.localState]).toEqual([409, 'invalid_state', 'approved']);
    expect((await tenant.call(viewer, 'GET', `${PREFIX}/${intent.id}`)).body).toMatchObject({ localState: 'approved', version: back.body.version });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('issued');
    expect(await documentsOf(intent.correlationId)).toHaveLength(1);
  });

  it('names the member who issued in the submitting commit: one entry per issue, and one even when the function dies after the provider call', async () => {
    const auditOf = async (id: string) => (await tenant.call(admin, 'GET', `/v1/audit?resourceId=${id}&limit=100`)).body.items as Array<{ action: string; actorId: string; requestId: string }>;
    const answered = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${answered.id}/issue`);
    expect(issued.body.localState).toBe('issued');
    const entries = (await auditOf(answered.id)).filter((e) => e.action === 'issueInvoiceIntent');
    expect(entries).toEqual([expect.objectContaining({ actorId: admin.id, requestId: issued.headers.get('x-request-id') })]);

    const crashed = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    // The provider makes the document; the function dies before its second commit (its writes are dropped).
    // As the invoicing function runs it (the IAM check holds its calls against that role).
    const lost = await runAs('invoicing', () => issueIntent(tenant.id, crashed.id, new Date(), { actorId: admin.id, requestId: 'request-that-died' }));
    expect(lost.record.localState).toBe('issued');
    expect((await getIntent(tenant.id, crashed.id)).localState).toBe('submitting');
    expect((await auditOf(crashed.id)).filter((e) => e.action === 'issueInvoiceIntent')).toEqual([
      expect.objectContaining({ actorId: admin.id, requestId: 'request-that-died' }),
    ]);
  });

  it('replays an idempotent issue with the same key', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connection.id, ready.customerId));
    const key = crypto.randomUUID();
    const first = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`, { idempotencyKey: key });
    const again = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`, { idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
