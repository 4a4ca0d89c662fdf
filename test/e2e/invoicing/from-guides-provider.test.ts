import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getIntent } from '../../../functions/invoicing/intent-record.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { GUIDE_DAY, guideLine, seedGuide } from './guides-seed.ts';
import { FAKE_SETTINGS } from './provider-fake.ts';
import { invoiceBody, PREFIX, putRecord } from './support.ts';
import { openProviderWorld, type ProviderWorld } from './world.ts';

// The test runs the reconciler itself, as its own Lambda (the IAM check holds its calls against that role).
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR', INVOICE_RECONCILE_SECONDS: '3600' } });
const COMPANY = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };

describe('invoices made from guides through provider-chile-v1 (real adapter, fake provider)', () => {
  let { fake, tenant, admin, operator, ready, close } = {} as ProviderWorld;
  // 2 x 1495 + 1 x 23000 = 25990 per guide.
  const guide = () => seedGuide(tenant.id, ready.connectionId, ready.customerId, [guideLine('harina', '2', '1495'), guideLine('flete', '1', '23000')], { customerExternalId: '2' });
  const createApproved = async (dispatchGuideIds: string[]) => {
    const { lines: _lines, ...body } = invoiceBody(ready.connectionId, ready.customerId, { totalMinor: String(25990 * dispatchGuideIds.length) });
    const created = await tenant.call(operator, 'POST', PREFIX, { body: { ...body, dispatchGuideIds } });
    expect(created.status, created.text).toBe(201);
    await tenant.call(operator, 'POST', `${PREFIX}/${created.body.id}/review`, { body: { version: 1 } });
    const approved = await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/approve`, { body: { version: 2 } });
    expect(approved.status, approved.text).toBe(200);
    return created.body as { id: string; correlationId: string };
  };

  beforeAll(async () => {
    ({ fake, tenant, admin, operator, ready, close } = await openProviderWorld(stack(), { company: COMPANY }));
  });
  afterAll(async () => close?.());

  it('references each guide on POST /v1/documents.json: folio, emission date, type 52', async () => {
    const [first, second] = [await guide(), await guide()];
    const invoice = await createApproved([first.id, second.id]);
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${invoice.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'issued', dispatchGuideIds: [first.id, second.id] });
    const documentId = Number(issued.body.externalDocumentId);
    expect(fake.references(ready.token, documentId)).toEqual([
      { number: first.documentNumber, referenceDate: GUIDE_DAY, codeSii: 52, reason: '' },
      { number: second.documentNumber, referenceDate: GUIDE_DAY, codeSii: 52, reason: '' },
    ]);
    const document = fake.documents(ready.token).filter((d) => d.salesId === invoice.correlationId);
    expect(document).toHaveLength(1);
    expect(document[0]).toMatchObject({ netAmount: 51980 });
  });

  it('does not take the stock again: the guides’ shippings took it (dispatch left out even with dispatchStock)', async () => {
    const connection = await tenant.call(admin, 'GET', `/v1/integrations/connections/${ready.connectionId}`);
    const saved = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${ready.connectionId}/issue-settings`, {
      body: { version: connection.body.version, ...FAKE_SETTINGS, dispatchStock: true },
    });
    expect(saved.status, saved.text).toBe(200);
    const variantId = await putRecord(tenant.id, ready.connectionId, 'variants', '1');
    const stock = () => fake.catalogue(COMPANY.clientCode).stocks.find((s) => Number(s.variant.id) === 1 && Number(s.office.id) === 1)!.quantity;
    const before = stock();
    const line = guideLine('harina', '2', '1495', { catalogItemId: variantId, variantExternalId: '1' });
    const withVariant = await seedGuide(tenant.id, ready.connectionId, ready.customerId, [line, guideLine('flete', '1', '23000')], { customerExternalId: '2' });
    const invoice = await createApproved([withVariant.id]);
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${invoice.id}/issue`)).body.localState).toBe('issued');
    expect(stock()).toBe(before);
    // The same line on an invoice of its own takes it (the setting works).
    const plain = invoiceBody(ready.connectionId, ready.customerId, { lines: [{ conceptKey: 'harina', description: 'Harina', quantity: 2, unitPriceMinor: '1495', catalogItemId: variantId }], totalMinor: '2990' });
    const own = await tenant.call(operator, 'POST', PREFIX, { body: plain });
    await tenant.call(operator, 'POST', `${PREFIX}/${own.body.id}/review`, { body: { version: 1 } });
    await tenant.call(admin, 'POST', `${PREFIX}/${own.body.id}/approve`, { body: { version: 2 } });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${own.body.id}/issue`)).body.localState).toBe('issued');
    expect(stock()).toBe(before - 2);
  });

  it('frees the guide when the tax authority rejects the invoice, in the reconciler’s commit', async () => {
    const held = await guide();
    fake.setInformedSii(COMPANY.clientCode, 1);
    const invoice = await createApproved([held.id]);
    const recorded = await tenant.call(admin, 'POST', `${PREFIX}/${invoice.id}/issue`);
    fake.setInformedSii(COMPANY.clientCode, 0);
    expect(recorded.body).toMatchObject({ localState: 'provider_recorded', taxState: 'pending' });
    const { lines: _lines, ...body } = invoiceBody(ready.connectionId, ready.customerId);
    const again = { ...body, dispatchGuideIds: [held.id] };
    expect((await tenant.call(operator, 'POST', PREFIX, { body: again })).body.code).toBe('guide_already_invoiced');

    fake.documents(ready.token).find((d) => d.salesId === invoice.correlationId)!.informedSii = 2;
    const due = (await getIntent(tenant.id, invoice.id)).reconcileDueAt!;
    await runAs(invoiceReconciler.name, () => runReconciler(new Date(Date.parse(due) + 1000)));
    expect(await getIntent(tenant.id, invoice.id)).toMatchObject({ localState: 'rejected', taxState: 'rejected' });
    const next = await tenant.call(operator, 'POST', PREFIX, { body: again });
    expect(next.status, next.text).toBe(201);
  });
});
