import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sandboxProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { approved, invoiceBody, PREFIX, putRecord, readySandbox } from './support.ts';

const stack = useLocalStack();

describe('credit notes through the provider’s returns', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let ready: Awaited<ReturnType<typeof readySandbox>>;
  let invoice: { id: string; externalDocumentId: string };
  const creditBody = (lines: Array<{ creditedPosition: number; quantity: number | string; unitPriceMinor: string }>, over: Record<string, unknown> = {}) => ({
    connectionId: ready.connection.id,
    documentKind: 'credit_note',
    customerId: ready.customerId,
    creditedInvoiceId: invoice.id,
    currency: 'CLP',
    minorUnitScale: 0,
    totalMinor: String(lines.reduce((sum, l) => sum + Math.round(Number(l.quantity) * Number(l.unitPriceMinor)), 0)),
    lines: lines.map((l, i) => ({ conceptKey: `devolucion-${i}`, description: 'Devolución', ...l })),
    ...over,
  });
  const create = (body: unknown) => tenant.call(operator, 'POST', PREFIX, { body });

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
    ready = await readySandbox(tenant, admin);
    // Position 1: 3 x 1495, position 2: 1 x 23000.
    const body = invoiceBody(ready.connection.id, ready.customerId, {
      totalMinor: '27485',
      lines: [
        { conceptKey: 'harina', description: 'Harina 1 kg', quantity: 3, unitPriceMinor: '1495' },
        { conceptKey: 'flete', description: 'Despacho', quantity: 1, unitPriceMinor: '23000' },
      ],
    });
    const intent = await approved(tenant, operator, admin, body);
    invoice = (await tenant.call(admin, 'POST', `${PREFIX}/${intent.id}/issue`)).body;
  });
  afterEach(() => sandboxProvider().faults.clear());

  it('credits part of an issued invoice: issued through a return, its document the credit note’s', async () => {
    const created = await create(creditBody([{ creditedPosition: 1, quantity: 2, unitPriceMinor: '1495' }]));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ documentKind: 'credit_note', creditedInvoiceId: invoice.id, totalMinor: '2990' });
    const lines = await tenant.call(admin, 'GET', `${PREFIX}/${created.body.id}/lines`);
    expect(lines.body.items[0]).toMatchObject({ position: 1, creditedPosition: 1, quantity: '2', lineTotalMinor: '2990' });
    await tenant.call(operator, 'POST', `${PREFIX}/${created.body.id}/review`, { body: { version: 1 } });
    await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/approve`, { body: { version: 2 } });
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'issued', taxState: 'authorized' });
    const recorded = await sandboxProvider().recorded({ tenantId: tenant.id, connectionId: ready.connection.id });
    const ret = recorded.returns.find((r) => r.creditNoteId === issued.body.externalDocumentId);
    expect(ret?.referenceDocumentId).toBe(invoice.externalDocumentId);
    expect(recorded.documents.filter((d) => d.salesId === created.body.correlationId)).toHaveLength(1);
  });

  it('keeps the credited quantities of all live credit notes within each line (422), and a cancelled one gives its share back', async () => {
    // Position 1 has 1 left (3 - 2 issued above).
    const over = await create(creditBody([{ creditedPosition: 1, quantity: 2, unitPriceMinor: '1495' }]));
    expect([over.status, over.body.code, over.body.errors[0].path]).toEqual([422, 'credit_exceeds_remaining', 'body.lines.0.quantity']);
    // Two lines of one note together exceed position 2.
    const split = await create(creditBody([{ creditedPosition: 2, quantity: '0.6', unitPriceMinor: '23000' }, { creditedPosition: 2, quantity: '0.5', unitPriceMinor: '23000' }]));
    expect(split.body.code).toBe('credit_exceeds_remaining');
    const held = await create(creditBody([{ creditedPosition: 2, quantity: 1, unitPriceMinor: '23000' }]));
    expect(held.status, held.text).toBe(201);
    expect((await create(creditBody([{ creditedPosition: 2, quantity: '0.000001', unitPriceMinor: '23000' }], { totalMinor: '0' }))).body.code).toBe('credit_exceeds_remaining');
    const cancelled = await tenant.call(admin, 'POST', `${PREFIX}/${held.body.id}/cancel`, { body: { version: 1 } });
    expect(cancelled.body.localState).toBe('cancelled');
    expect((await create(creditBody([{ creditedPosition: 2, quantity: 1, unitPriceMinor: '23000' }]))).status).toBe(201);
  });

  it('lets only one of two credit notes made at once take the last of a line', async () => {
    const answers = await Promise.all([1, 2].map(() => create(creditBody([{ creditedPosition: 1, quantity: 1, unitPriceMinor: '1495' }]))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(201);
    expect([409, 422]).toContain(statuses[1]);
  });

  it('refuses a position the invoice lacks, a draft invoice, and a credit note naming no invoice (422)', async () => {
    expect((await create(creditBody([{ creditedPosition: 9, quantity: 1, unitPriceMinor: '1' }]))).body.errors[0].path).toBe('body.lines.0.creditedPosition');
    const draft = await create(invoiceBody(ready.connection.id, ready.customerId));
    expect((await create(creditBody([{ creditedPosition: 1, quantity: 1, unitPriceMinor: '1' }], { creditedInvoiceId: draft.body.id }))).body.code).toBe('invalid_invoice');
    const missing = await create(creditBody([{ creditedPosition: 1, quantity: 1, unitPriceMinor: '1' }], { creditedInvoiceId: undefined }));
    expect(missing.body.errors[0].path).toBe('body.creditedInvoiceId');
  });

  it('credits what was invoiced: each line at the credited line’s unit price, for the credited document’s customer (422 naming the field)', async () => {
    const cheaper = await create(creditBody([{ creditedPosition: 2, quantity: 1, unitPriceMinor: '22999' }]));
    expect([cheaper.status, cheaper.body.code, cheaper.body.errors.map((e: { path: string }) => e.path)]).toEqual([422, 'invalid_invoice', ['body.lines.0.unitPriceMinor']]);
    const dearer = await create(creditBody([{ creditedPosition: 1, quantity: '0.5', unitPriceMinor: '2990' }]));
    expect(dearer.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.lines.0.unitPriceMinor']);
    const otherCustomer = await putRecord(tenant.id, ready.connection.id, 'parties', '502');
    const elsewhere = await create(creditBody([{ creditedPosition: 2, quantity: 1, unitPriceMinor: '23000' }], { customerId: otherCustomer }));
    // (Position 2 has nothing left by now, so its quantity is named too.)
    expect([elsewhere.status, elsewhere.body.code]).toEqual([422, 'invalid_invoice']);
    expect(elsewhere.body.errors.map((e: { path: string }) => e.path)).toContain('body.customerId');
    const nobody = await create(creditBody([{ creditedPosition: 2, quantity: 1, unitPriceMinor: '23000' }], { customerId: null }));
    expect(nobody.body.errors.map((e: { path: string }) => e.path)).toContain('body.customerId');
  });

  it('a credit note the provider refuses is rejected and gives its quantities back', async () => {
    const fresh = await approved(
      tenant,
      operator,
      admin,
      invoiceBody(ready.connection.id, ready.customerId, { totalMinor: '1000', lines: [{ conceptKey: 'x', description: 'Arroz', quantity: 1, unitPriceMinor: '1000' }] }),
    );
    const issuedInvoice = (await tenant.call(admin, 'POST', `${PREFIX}/${fresh.id}/issue`)).body;
    const note = await approved(tenant, operator, admin, creditBody([{ creditedPosition: 1, quantity: 1, unitPriceMinor: '1000' }], { creditedInvoiceId: issuedInvoice.id }));
    sandboxProvider().faults.add({ operation: 'createReturn', kind: 'refuse', times: 1 });
    expect((await tenant.call(admin, 'POST', `${PREFIX}/${note.id}/issue`)).body.localState).toBe('rejected');
    expect((await create(creditBody([{ creditedPosition: 1, quantity: 1, unitPriceMinor: '1000' }], { creditedInvoiceId: issuedInvoice.id }))).status).toBe(201);
  });
});
