import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findIntent } from '../../../functions/invoicing/intent-record.ts';
import { sandboxProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { GUIDE_DAY, guideLine, seedGuide, type SeedLine } from './guides-seed.ts';
import { invoiceBody, PREFIX, putRecord, readySandbox } from './support.ts';

const stack = useLocalStack();

describe('invoices made from dispatch guides (decisions 14)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let ready: Awaited<ReturnType<typeof readySandbox>>;
  const priced = (): SeedLine[] => [guideLine('harina', '2', '1495', { catalogItemId: ready.variantId, variantExternalId: '1001' }), guideLine('aceite', '1.5', '2001')];
  const guide = (lines = priced(), over = {}) => seedGuide(tenant.id, ready.connection.id, ready.customerId, lines, over);
  // 2 x 1495 + 1.5 x 2001 (3001.5, half up) = 5992 per priced guide.
  const body = (dispatchGuideIds: string[], over: Record<string, unknown> = {}) => {
    const { lines: _lines, ...rest } = invoiceBody(ready.connection.id, ready.customerId, { totalMinor: String(5992 * dispatchGuideIds.length), ...over });
    return { ...rest, dispatchGuideIds };
  };
  const create = (payload: unknown, idempotencyKey?: string) => tenant.call(operator, 'POST', PREFIX, { body: payload, ...(idempotencyKey ? { idempotencyKey } : {}) });
  const move = async (id: string, step: string, version: number, member = admin) => {
    const answer = await tenant.call(member, 'POST', `${PREFIX}/${id}/${step}`, { body: { version } });
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
    ready = await readySandbox(tenant, admin);
  });
  afterEach(() => sandboxProvider().faults.clear());

  it('copies the guides’ lines in the order named, and the issued document references each guide', async () => {
    const first = await guide();
    const second = await guide([guideLine('azucar', '3', '990')], { localState: 'provider_recorded', taxState: 'pending' });
    const created = await create(body([second.id, first.id], { totalMinor: String(2970 + 5992) }));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ documentKind: 'invoice', dispatchGuideIds: [second.id, first.id], totalMinor: '8962', localState: 'draft' });
    const lines = await tenant.call(operator, 'GET', `${PREFIX}/${created.body.id}/lines`);
    expect(lines.body.items).toEqual([
      { position: 1, conceptKey: 'azucar', description: 'azucar (guía)', quantity: '3', unitPriceMinor: '990', lineTotalMinor: '2970', catalogItemId: null, creditedPosition: null },
      { position: 2, conceptKey: 'harina', description: 'harina (guía)', quantity: '2', unitPriceMinor: '1495', lineTotalMinor: '2990', catalogItemId: ready.variantId, creditedPosition: null },
      { position: 3, conceptKey: 'aceite', description: 'aceite (guía)', quantity: '1.5', unitPriceMinor: '2001', lineTotalMinor: '3002', catalogItemId: null, creditedPosition: null },
    ]);
    await move(created.body.id, 'review', 1, operator);
    await move(created.body.id, 'approve', 2);
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'issued', dispatchGuideIds: [second.id, first.id] });
    const references = [
      { number: second.documentNumber, referenceDate: GUIDE_DAY, dteCodeSii: 52, reason: '' },
      { number: first.documentNumber, referenceDate: GUIDE_DAY, dteCodeSii: 52, reason: '' },
    ];
    // Fixed at create, sent by every attempt; the sandbox keeps what the document was issued with.
    expect((await findIntent(tenant.id, created.body.id))?.guideReferences).toEqual(references);
    const owner = { tenantId: tenant.id, connectionId: ready.connection.id };
    expect(await sandboxProvider().references(owner, issued.body.externalDocumentId)).toEqual(references);
    const recorded = await sandboxProvider().recorded({ tenantId: tenant.id, connectionId: ready.connection.id });
    expect(recorded.documents.filter((d) => d.salesId === created.body.correlationId)).toHaveLength(1);
  });

  it('answers dispatchGuideIds [] for an intent with lines of its own', async () => {
    const created = await create(invoiceBody(ready.connection.id, ready.customerId));
    expect(created.status, created.text).toBe(201);
    expect(created.body.dispatchGuideIds).toEqual([]);
  });

  it('keeps a guide on one live invoice: 409 guide_already_invoiced, and a refused create holds none of its guides', async () => {
    const [held, free] = await Promise.all([guide(), guide()]);
    const first = await create(body([held.id]));
    expect(first.status, first.text).toBe(201);
    const again = await create(body([free.id, held.id]));
    expect([again.status, again.body.code, again.body.dispatchGuideId, again.body.invoiceIntentId]).toEqual([409, 'guide_already_invoiced', held.id, first.body.id]);
    expect((await create(body([free.id]))).status).toBe(201);
  });

  it('lets one of two invoices created at once naming one guide win; the other answers 409', async () => {
    const shared = await guide();
    const answers = await Promise.all([1, 2].map(() => create(body([shared.id]))));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('guide_already_invoiced');
  });

  it('frees the guides of a cancelled invoice and of a rejected one, in the same transaction', async () => {
    const shared = await guide();
    const cancelled = await create(body([shared.id]));
    expect((await move(cancelled.body.id, 'cancel', 1)).localState).toBe('cancelled');
    const next = await create(body([shared.id]));
    expect(next.status, next.text).toBe(201);
    expect((await create(body([shared.id]))).body.code).toBe('guide_already_invoiced');
    await move(next.body.id, 'review', 1, operator);
    await move(next.body.id, 'approve', 2);
    sandboxProvider().faults.add({ operation: 'issueDocument', kind: 'refuse', times: 1 });
    const refused = await tenant.call(admin, 'POST', `${PREFIX}/${next.body.id}/issue`);
    expect(refused.body).toMatchObject({ localState: 'rejected', providerState: 'rejected' });
    expect((await create(body([shared.id]))).status).toBe(201);
  });

  it('replays an idempotent create: the same invoice, and the guide still held once', async () => {
    const shared = await guide();
    const key = randomUUID();
    const [one, two] = [await create(body([shared.id]), key), await create(body([shared.id]), key)];
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(two.body).toEqual(one.body);
    expect((await create(body([shared.id]))).body.code).toBe('guide_already_invoiced');
  });

  it('refuses what cannot be invoiced (422 naming the field)', async () => {
    const ok = await guide();
    const otherTenant = await seedGuide(randomUUID(), ready.connection.id, ready.customerId, priced());
    const otherCustomer = await guide(priced(), { customerId: await putRecord(tenant.id, ready.connection.id, 'parties', '777') });
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['a receipt', body([ok.id], { documentKind: 'receipt' }), 'invalid_invoice', 'body.dispatchGuideIds'],
      ['a credit note', body([ok.id], { documentKind: 'credit_note' }), 'invalid_invoice', 'body.dispatchGuideIds'],
      ['lines as well', { ...body([ok.id]), lines: invoiceBody(ready.connection.id, ready.customerId).lines }, 'invalid_invoice', 'body.lines'],
      ['a guide twice', body([ok.id, ok.id]), 'invalid_invoice', 'body.dispatchGuideIds.1'],
      ['an unknown id', body([randomUUID()]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['another tenant’s guide', body([otherTenant.id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['another connection’s guide', body([ok.id, (await guide(priced(), { connectionId: randomUUID() })).id]), 'invalid_invoice', 'body.dispatchGuideIds.1'],
      ['another customer’s guide', body([otherCustomer.id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['a guide not issued yet', body([(await guide(priced(), { localState: 'submitting' })).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['a guide without its folio', body([(await guide(priced(), { documentNumber: null })).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['a line without a price', body([(await guide([guideLine('pallet', '4', null)])).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['a line sent at 0 (no price)', body([(await guide([guideLine('pallet', '4', '0')])).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['an internal transfer', body([(await guide(priced(), { transfer: 'internal_transfer' })).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['an invoice, not a guide', body([(await guide(priced(), { documentKind: 'invoice' })).id]), 'invalid_invoice', 'body.dispatchGuideIds.0'],
      ['a total other than the lines’', body([ok.id], { totalMinor: '5993' }), 'total_mismatch', 'body.totalMinor'],
    ];
    for (const [what, payload, code, path] of cases) {
      const answer = await create(payload);
      expect([what, answer.status, answer.body.code, answer.body.errors?.[0]?.path], answer.text).toEqual([what, 422, code, path]);
    }
    // Every problem in one answer: the request's shape and each guide's.
    const all = await create({ ...body([ok.id, randomUUID()], { documentKind: 'receipt' }), lines: invoiceBody(ready.connection.id, ready.customerId).lines });
    expect([all.status, all.body.code, all.body.errors.map((e: { path: string }) => e.path)]).toEqual([422, 'invalid_invoice', ['body.dispatchGuideIds', 'body.lines', 'body.dispatchGuideIds.1']]);
    const unpriced = await create(body([(await guide([guideLine('pallet', '4', null), guideLine('caja', '1', '10'), guideLine('saco', '1', '0')])).id]));
    expect(unpriced.body.errors[0].message).toContain('positions 1, 3');
    // Nothing was held by the refused creates.
    expect((await create(body([ok.id]))).status).toBe(201);
  });

  it('refuses malformed requests (400) and more lines than an invoice holds (422)', async () => {
    const { lines: _l, ...noLines } = invoiceBody(ready.connection.id, ready.customerId);
    const missing = await create(noLines);
    expect([missing.status, missing.body.code, missing.body.errors[0].path]).toEqual([400, 'validation_failed', 'body.lines']);
    // The SII's 40 references (DTE_v10.xsd, Referencia maxOccurs 40).
    const many = await create(body(Array.from({ length: 41 }, () => randomUUID())));
    expect([many.status, many.body.errors[0].path, many.body.errors[0].message]).toEqual([400, 'body.dispatchGuideIds', 'must name at most 40 guides']);
    const guideKind = await create(invoiceBody(ready.connection.id, ready.customerId, { documentKind: 'dispatch_guide' }));
    expect([guideKind.status, guideKind.body.errors[0].path]).toEqual([400, 'body.documentKind']);
    const none = await create(body([]));
    expect([none.status, none.body.errors[0].path]).toEqual([400, 'body.dispatchGuideIds']);
    // The SII's 60 detail lines (DTE_v10.xsd, Detalle maxOccurs 60): 30 + 31 lines are one too many.
    const lined = (n: number) => guide(Array.from({ length: n }, (_, i) => guideLine(`item-${i}`, '1', '1')));
    const [thirty, thirtyOne, otherThirty] = [await lined(30), await lined(31), await lined(30)];
    const over = await create(body([thirty.id, thirtyOne.id], { totalMinor: '61' }));
    expect([over.status, over.body.code, over.body.errors]).toEqual([
      422,
      'invalid_invoice',
      [{ path: 'body.dispatchGuideIds', message: "the guides have 61 lines together; an invoice holds at most 60 (the SII's detail lines)" }],
    ]);
    // With another problem, one 422 names both.
    const both = await create(body([thirty.id, thirtyOne.id, randomUUID()], { totalMinor: '61' }));
    expect(both.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.dispatchGuideIds.2', 'body.dispatchGuideIds']);
    expect((await create(body([thirty.id, otherThirty.id], { totalMinor: '60' }))).status).toBe(201);
  });

  it('takes 40 guides, the most an invoice references', async () => {
    const forty = await Promise.all(Array.from({ length: 40 }, () => guide([guideLine('caja', '1', '100')], { localState: 'provider_recorded', taxState: 'pending' })));
    const created = await create(body(forty.map((g) => g.id), { totalMinor: '4000' }));
    expect(created.status, created.text).toBe(201);
    expect(created.body.dispatchGuideIds).toHaveLength(40);
  });
});
