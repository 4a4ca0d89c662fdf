import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { connectSandbox } from '../integrations/support.ts';
import { invoiceBody, PREFIX, readySandbox } from './support.ts';

const stack = useLocalStack();

describe('creating an invoice intent', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let ready: Awaited<ReturnType<typeof readySandbox>>;
  const create = (body: unknown) => tenant.call(operator, 'POST', PREFIX, { body });
  const count = async () => (await tenant.call(admin, 'GET', `${PREFIX}?limit=100`)).body.items.length;

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
    ready = await readySandbox(tenant, admin);
  });

  it('computes each line total half up and needs the lines to sum to totalMinor (422 total_mismatch)', async () => {
    const lines = [
      { conceptKey: 'a', description: 'Aceite 1 L', quantity: 0.5, unitPriceMinor: '3', catalogItemId: ready.variantId },
      { conceptKey: 'b', description: 'Sal', quantity: '0.333333', unitPriceMinor: '10' },
      { conceptKey: 'c', description: 'Té', quantity: '2.25', unitPriceMinor: '1001' },
    ];
    // 1.5 → 2, 3.33333 → 3, 2252.25 → 2252
    const wrong = await create(invoiceBody(ready.connection.id, ready.customerId, { lines, totalMinor: '2258' }));
    expect([wrong.status, wrong.body.code, wrong.body.errors]).toEqual([422, 'total_mismatch', [{ path: 'body.totalMinor', message: 'must be 2257, the sum of lineTotalMinor' }]]);
    const right = await create(invoiceBody(ready.connection.id, ready.customerId, { lines, totalMinor: '2257' }));
    expect(right.status, right.text).toBe(201);
    const answer = await tenant.call(admin, 'GET', `${PREFIX}/${right.body.id}/lines`);
    expect(answer.body.items.map((l: Record<string, unknown>) => [l.quantity, l.lineTotalMinor, l.catalogItemId])).toEqual([
      ['0.5', '2', ready.variantId],
      ['0.333333', '3', null],
      ['2.25', '2252', null],
    ]);
  });

  it('refuses what does not fit the connection, its records or ISO 4217 with 422, creating nothing', async () => {
    const before = await count();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ customerId: null }, 'invalid_invoice', 'body.customerId'],
      [{ customerId: crypto.randomUUID() }, 'invalid_invoice', 'body.customerId'],
      [{ currency: 'USD', minorUnitScale: 2 }, 'invalid_invoice', 'body.currency'],
      [{ minorUnitScale: 2 }, 'invalid_invoice', 'body.minorUnitScale'],
      [{ currency: 'XYZ' }, 'invalid_invoice', 'body.currency'],
      [{ lines: [{ conceptKey: 'a', description: 'b', quantity: 1, unitPriceMinor: '25990', catalogItemId: crypto.randomUUID() }] }, 'invalid_invoice', 'body.lines.0.catalogItemId'],
      [{ creditedInvoiceId: crypto.randomUUID() }, 'invalid_invoice', 'body.creditedInvoiceId'],
    ];
    for (const [over, code, path] of cases) {
      const answer = await create(invoiceBody(ready.connection.id, ready.customerId, over));
      expect(answer.status, JSON.stringify(over)).toBe(422);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body.code).toBe(code);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    // A receipt may go without a customer.
    expect((await create(invoiceBody(ready.connection.id, null, { documentKind: 'receipt' }))).status).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  it('refuses a quantity, price or total the provider could not receive exactly as a JSON number (422 naming the field), creating nothing', async () => {
    const before = await count();
    const line = (quantity: string | number, unitPriceMinor: string) => ({ conceptKey: 'a', description: 'Carga', quantity, unitPriceMinor });
    const cases: Array<[Record<string, unknown>[], string, string]> = [
      // 18 significant digits: a double carries 123456789012.12346.
      [[line('123456789012.123456', '1')], '123456789012', 'body.lines.0.quantity'],
      [[line(1, '9007199254740992')], '9007199254740992', 'body.lines.0.unitPriceMinor'],
      [[line(2, '4503599627370496')], '9007199254740992', 'body.lines.0.quantity'],
      [[line(1, '9007199254740991'), line(1, '1')], '9007199254740992', 'body.totalMinor'],
    ];
    for (const [lines, totalMinor, path] of cases) {
      const answer = await create(invoiceBody(ready.connection.id, ready.customerId, { lines, totalMinor }));
      expect([answer.status, answer.body.code, answer.body.errors.map((e: { path: string }) => e.path)], path).toEqual([422, 'invalid_invoice', [path]]);
    }
    // The largest that travels exactly is taken.
    expect((await create(invoiceBody(ready.connection.id, ready.customerId, { lines: [line('12345678901.12345', '1'), line(1, '9007186909062090')], totalMinor: '9007199254740991' }))).status).toBe(201);
    expect(await count()).toBe(before + 1);
  });

  it('holds at most 60 lines on an invoice or a credit note (the SII’s Detalle) and 200 on a receipt, creating nothing over them', async () => {
    const before = await count();
    const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ conceptKey: `c${i}`, description: `Caja ${i}`, quantity: 1, unitPriceMinor: '10' }));
    const invoice = await create(invoiceBody(ready.connection.id, ready.customerId, { lines: lines(61), totalMinor: '610' }));
    expect([invoice.status, invoice.body.code, invoice.body.errors]).toEqual([422, 'invalid_invoice', [{ path: 'body.lines', message: 'has 61 lines; an invoice holds at most 60 (a receipt 200)' }]]);
    // Every problem in one answer: the line count and the customer.
    const both = await create(invoiceBody(ready.connection.id, null, { lines: lines(61), totalMinor: '610' }));
    expect(both.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.customerId', 'body.lines']);
    const credit = await create(invoiceBody(ready.connection.id, ready.customerId, { documentKind: 'credit_note', creditedInvoiceId: crypto.randomUUID(), lines: lines(61), totalMinor: '610' }));
    expect([credit.status, credit.body.code, credit.body.errors[0]]).toEqual([422, 'invalid_invoice', { path: 'body.lines', message: 'has 61 lines; a credit note holds at most 60 (a receipt 200)' }]);
    const overShape = await create(invoiceBody(ready.connection.id, null, { documentKind: 'receipt', lines: lines(201), totalMinor: '2010' }));
    expect([overShape.status, overShape.body.errors[0].path]).toEqual([400, 'body.lines']);
    expect(await count()).toBe(before);
    expect((await create(invoiceBody(ready.connection.id, ready.customerId, { lines: lines(60), totalMinor: '600' }))).status).toBe(201);
    expect((await create(invoiceBody(ready.connection.id, null, { documentKind: 'receipt', lines: lines(200), totalMinor: '2000' }))).status).toBe(201);
    expect(await count()).toBe(before + 2);
  });

  it('needs an active connection with issue settings (422 connection_not_ready)', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const unset = await create(invoiceBody(connection.id, null, { documentKind: 'receipt' }));
    expect([unset.status, unset.body.code]).toEqual([422, 'connection_not_ready']);
    expect((await create(invoiceBody(crypto.randomUUID(), null, { documentKind: 'receipt' }))).body.code).toBe('connection_not_ready');
    const other = await readySandbox(tenant, admin);
    await tenant.call(admin, 'POST', `/v1/integrations/connections/${other.connection.id}/revoke`, { body: { version: other.connection.version } });
    expect((await create(invoiceBody(other.connection.id, null, { documentKind: 'receipt' }))).body.code).toBe('connection_not_ready');
  });

  it('answers 400 for malformed input (bad quantity, unknown field, missing idempotency key)', async () => {
    const bad = await create(invoiceBody(ready.connection.id, ready.customerId, { lines: [{ conceptKey: 'a', description: 'b', quantity: '1.0000001', unitPriceMinor: '1' }] }));
    expect(bad.status).toBe(400);
    expect((await create({ ...invoiceBody(ready.connection.id, ready.customerId), surprise: true })).status).toBe(400);
    const noKey = await tenant.call(operator, 'POST', PREFIX, { body: invoiceBody(ready.connection.id, ready.customerId), idempotencyKey: false });
    expect(noKey.status).toBe(400);
  });
});
