import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntent } from '../../../functions/invoicing/intent-record.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { connectFake } from './provider-fake.ts';
import { approved, invoiceBody, PREFIX } from './support.ts';
import { openProviderWorld, type ProviderWorld } from './world.ts';

const stack = useLocalStack();
const COMPANY = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };

describe('invoice intents through provider-chile-v1 (real adapter, fake provider)', () => {
  let { fake, tenant, admin, operator, ready, close } = {} as ProviderWorld;
  const docsOf = (salesId: string) => fake.documents(ready.token).filter((d) => d.salesId === salesId);

  beforeAll(async () => {
    ({ fake, tenant, admin, operator, ready, close } = await openProviderWorld(stack(), { company: COMPANY }));
  });
  afterAll(async () => close?.());

  it('sends the document once with the settings, salesId = correlationId and the tenant’s day', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'issued', providerState: 'accepted', taxState: 'authorized', providerVersion: null });
    const [document] = docsOf(intent.correlationId);
    expect(String(document!.id)).toBe(issued.body.externalDocumentId);
    expect(document).toMatchObject({ document_type: { id: '1' }, office: { id: '1' }, client: { id: '2' }, netAmount: 25990 });
    const santiagoDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(new Date());
    expect(document!.emissionDate).toBe(Date.parse(`${santiagoDay}T00:00:00Z`) / 1000);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/documents.json'))).toHaveLength(1);
  });

  it('polls a pending tax state: provider_recorded until the tax authority answers, then issued', async () => {
    fake.setInformedSii(COMPANY.clientCode, 1);
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    fake.setInformedSii(COMPANY.clientCode, 0);
    expect(issued.body).toMatchObject({ localState: 'provider_recorded', providerState: 'accepted', taxState: 'pending' });
    const first = await getIntent(tenant.id, intent.id);
    const still = await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`);
    expect(still.body).toMatchObject({ localState: 'provider_recorded', taxState: 'pending', version: issued.body.version });
    const polled = await getIntent(tenant.id, intent.id);
    // Backoff: each poll that learns nothing waits longer for the next.
    expect(Date.parse(polled.reconcileDueAt!) - Date.parse(first.reconcileDueAt!)).toBeGreaterThan(0);
    docsOf(intent.correlationId)[0]!.informedSii = 0;
    const done = await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`);
    expect(done.body).toMatchObject({ localState: 'issued', taxState: 'authorized', version: issued.body.version + 1 });
    expect(docsOf(intent.correlationId)).toHaveLength(1);
  });

  it('a document the tax authority rejects is rejected (providerState accepted, taxState rejected)', async () => {
    fake.setInformedSii(COMPANY.clientCode, 2);
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    fake.setInformedSii(COMPANY.clientCode, 0);
    expect(issued.body).toMatchObject({ localState: 'rejected', providerState: 'accepted', taxState: 'rejected' });
  });

  it('credits an issued invoice through POST /v1/returns.json and reads the credit note document', async () => {
    const invoice = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    const issued = (await tenant.call(admin, 'POST', `${PREFIX}/${invoice.id}/issue`)).body;
    const note = await approved(tenant, operator, admin, {
      connectionId: ready.connectionId,
      documentKind: 'credit_note',
      customerId: ready.customerId,
      creditedInvoiceId: invoice.id,
      currency: 'CLP',
      minorUnitScale: 0,
      totalMinor: '1495',
      lines: [{ conceptKey: 'devolucion', description: 'Harina dañada', quantity: 1, unitPriceMinor: '1495', creditedPosition: 1 }],
    });
    const credited = await tenant.call(admin, 'POST', `${PREFIX}/${note.id}/issue`);
    expect(credited.body).toMatchObject({ localState: 'issued', documentKind: 'credit_note' });
    const ret = fake.returns(ready.token).find((r) => r.salesId === note.correlationId);
    expect(ret?.reference_document.id).toBe(issued.externalDocumentId);
    expect(credited.body.externalDocumentId).toBe(ret?.credit_note.id);
  });

  it.each([400, 401])('once the provider accepted a return, a later %i leaves the credit note unknown with the return kept, never rejected or re-sent', async (status) => {
    const invoice = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    await tenant.call(admin, 'POST', `${PREFIX}/${invoice.id}/issue`);
    const note = await approved(tenant, operator, admin, {
      connectionId: ready.connectionId,
      documentKind: 'credit_note',
      customerId: ready.customerId,
      creditedInvoiceId: invoice.id,
      currency: 'CLP',
      minorUnitScale: 0,
      totalMinor: '1495',
      lines: [{ conceptKey: 'devolucion', description: 'Harina dañada', quantity: 1, unitPriceMinor: '1495', creditedPosition: 1 }],
    });
    // The return is accepted; reading its credit note document then fails.
    fake.faults.add({ route: 'GET /v1/documents/{id}.json', kind: 'status', status });
    const answered = await tenant.call(admin, 'POST', `${PREFIX}/${note.id}/issue`);
    const ret = fake.returns(ready.token).find((r) => r.salesId === note.correlationId)!;
    expect(answered.body).toMatchObject({ localState: 'unknown', externalDocumentId: String(ret.credit_note.id) });
    expect((await getIntent(tenant.id, note.id)).providerReturnId).toBe(String(ret.id));
    // Its quantity stays credited, and it cannot be cancelled.
    const again = await tenant.call(operator, 'POST', PREFIX, {
      body: { ...invoiceBody(ready.connectionId, ready.customerId), documentKind: 'credit_note', creditedInvoiceId: invoice.id, totalMinor: '2990', lines: [{ conceptKey: 'd', description: 'Más', quantity: 2, unitPriceMinor: '1495', creditedPosition: 1 }] },
    });
    expect(again.body.code).toBe('credit_exceeds_remaining');
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${note.id}/cancel`, { body: { version: answered.body.version } })).body.code).toBe('invalid_state');
    // A look that finds nothing keeps it unknown (not back to approved, which would allow a second return).
    fake.faults.add({ route: 'GET /v1/documents/{id}.json', kind: 'status', status: 404 });
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${note.id}/reconcile`)).body.localState).toBe('unknown');
    const settled = await tenant.call(operator, 'POST', `${PREFIX}/${note.id}/reconcile`);
    expect(settled.body).toMatchObject({ localState: 'issued', externalDocumentId: String(ret.credit_note.id) });
    expect(fake.returns(ready.token).filter((r) => r.salesId === note.correlationId)).toHaveLength(1);
  });

  it('a 429 leaves the intent unknown; reconcile finds nothing and returns it to approved; the next issue makes the one document', async () => {
    const intent = await approved(tenant, operator, admin, invoiceBody(ready.connectionId, ready.customerId));
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'status', status: 429 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('unknown');
    expect((await tenant.call(operator, 'POST', `${PREFIX}/${intent.id}/reconcile`)).body.localState).toBe('approved');
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body.localState).toBe('issued');
    expect(docsOf(intent.correlationId)).toHaveLength(1);
  });

  it('a revoked connection answers issue with 409 connection_revoked, the intent still readable', async () => {
    const other = await connectFake(fake, tenant, admin, { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' });
    const intent = await approved(tenant, operator, admin, invoiceBody(other.connectionId, other.customerId));
    const connection = await tenant.call(admin, 'GET', `/v1/integrations/connections/${other.connectionId}`);
    await tenant.call(admin, 'POST', `/v1/integrations/connections/${other.connectionId}/revoke`, { body: { version: connection.body.version } });
    const refused = await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`);
    expect([refused.status, refused.body.code]).toEqual([409, 'connection_revoked']);
    expect((await tenant.call(admin, 'GET', `${PREFIX}/${intent.id}`)).body.localState).toBe('approved');
  });
});
