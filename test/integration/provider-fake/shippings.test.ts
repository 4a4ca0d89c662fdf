import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { call, DAY, startWithCompanies } from './client.ts';

let fake: ProviderFake;
let token: string;
let otherToken: string;
afterEach(() => fake?.stop());
const start = async () => {
  const started = await startWithCompanies();
  fake = started.fake;
  token = started.tokenA;
  otherToken = started.tokenB;
  fake.setRateLimit(null);
};

/** A sale's guide (type 8, the active codeSii 52) with one catalogue line and one described line without price. */
const shippingBody = (salesId: string, overrides: Record<string, unknown> = {}) => ({
  documentTypeId: 8, officeId: 1, emissionDate: DAY, shippingTypeId: 1, declareSii: 1, salesId, clientId: 2,
  address: 'Av. Los Leones 1200', municipality: 'Providencia', city: 'Santiago', recipient: 'Rosa Contreras', dispatch: 1,
  details: [
    { variantId: 1, quantity: 1, netUnitValue: 1000, taxId: '[1]' },
    { comment: 'Cajas retornables', quantity: 3, netUnitValue: 0 },
  ],
  ...overrides,
});
const post = (salesId: string, overrides: Record<string, unknown> = {}, signal?: AbortSignal) =>
  call(fake, 'POST', '/v1/shippings.json', { token, body: shippingBody(salesId, overrides), signal });

describe('provider fake: dispatch guides', () => {
  it('pages an expanded details at 25 lines with count, limit and offset; details.json answers the rest (provider-chile.md, corrected)', async () => {
    await start();
    const details = Array.from({ length: 30 }, (_, i) => ({ comment: `Caja ${i + 1}`, quantity: i + 1, netUnitValue: 0 }));
    const made = await post('g-30', { details, dispatch: 0 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const expanded = (await call(fake, 'GET', `/v1/shippings/${made.body.id}.json?expand=[details]`, { token })).body.details;
    expect([expanded.count, expanded.limit, expanded.offset, expanded.items.length, expanded.items[24].note]).toEqual([30, 25, 0, 25, 'Caja 25']);
    const listed = (await call(fake, 'GET', `/v1/shippings.json?shippingdate=${DAY}&expand=[details]`, { token })).body.items[0].details;
    expect([listed.count, listed.items.length]).toEqual([30, 25]);
    const rest = (await call(fake, 'GET', `/v1/shippings/${made.body.id}/details.json?limit=50&offset=25`, { token })).body;
    expect([rest.count, rest.offset, rest.items.map((d: any) => d.quantity)]).toEqual([30, 25, [26, 27, 28, 29, 30]]);
    fake.damageShippingLines(token, made.body.id);
    expect((await call(fake, 'GET', `/v1/shippings/${made.body.id}.json?expand=[details]`, { token })).body.details.items[0].quantity).toBe('n/a');
  });

  it('lists shipping types with state and codesii filters, codeSii as text', async () => {
    await start();
    const all = (await call(fake, 'GET', '/v1/shipping_types.json', { token })).body;
    expect(all.count).toBe(9);
    expect(all.items.map((t: any) => t.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(all.items[0]).toEqual({ href: `${fake.apiUrl}/v1/shipping_types/1.json`, id: 1, name: 'Operación constituye venta', codeSii: '1', useDestinationOffice: 0, state: 0 });
    expect((await call(fake, 'GET', '/v1/shipping_types.json?state=0', { token })).body.count).toBe(8);
    expect((await call(fake, 'GET', '/v1/shipping_types.json?codesii=5', { token })).body.items).toEqual([expect.objectContaining({ name: 'Traslados internos', useDestinationOffice: 1 })]);
  });

  it('creates a shipping and its guide (201) on every POST, a repeated salesId included (the provider documents no de-duplication for shippings), and reads it expanded', async () => {
    await start();
    const stockBefore = fake.catalogue('76123456-0').stocks.find((s) => Number(s.variant.id) === 1 && Number(s.office.id) === 1)!.quantityAvailable;
    const made = await post('g-1');
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      shippingDate: DAY, address: 'Av. Los Leones 1200', municipality: 'Providencia', city: 'Santiago', recipient: 'Rosa Contreras', state: 0,
      office: { id: '1' }, shipping_type: { id: '1' }, guide: { id: expect.any(String) }, details: { href: expect.any(String) },
    });
    const guide = (await call(fake, 'GET', `/v1/documents/${made.body.guide.id}.json`, { token })).body;
    // The provider documents no salesId for shippings: the guide carries none.
    expect(guide).toMatchObject({ number: 1, salesId: null, informedSii: 0, document_type: { id: '8' }, client: { id: '2' } });
    expect(fake.catalogue('76123456-0').stocks.find((s) => Number(s.variant.id) === 1 && Number(s.office.id) === 1)!.quantityAvailable).toBe(stockBefore - 1);
    const again = await post('g-1', { recipient: 'Otra' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(made.body.id);
    expect(fake.shippings(token).map((s) => s.salesId)).toEqual(['g-1', 'g-1']);
    expect(fake.documents(token)).toHaveLength(2);
    // A documents look-up by salesId cannot find a guide.
    const found = (await call(fake, 'GET', `/v1/documents.json?documenttypeid=8&emissiondaterange=[${DAY},${DAY}]`, { token })).body.items;
    expect(found.map((d: any) => d.salesId)).toEqual([null, null]);
    const expanded = (await call(fake, 'GET', `/v1/shippings/${made.body.id}.json?expand=[guide,details]`, { token })).body;
    expect(expanded.guide).toMatchObject({ id: guide.id, number: 1 });
    expect(expanded.details.items.map((d: any) => [d.quantity, d.variant?.id ?? null])).toEqual([[1, '1'], [3, null]]);
    expect((await call(fake, 'GET', `/v1/shippings/${made.body.id}.json`, { token })).body).toEqual(made.body);
    expect((await call(fake, 'GET', `/v1/shippings/${made.body.id}/details.json`, { token })).body.count).toBe(2);
    expect((await call(fake, 'GET', `/v1/shippings/${made.body.id}.json`, { token: otherToken })).status).toBe(404);
    // A second guide of the same type counts its own folio.
    const third = await post('g-2');
    expect((await call(fake, 'GET', `/v1/documents/${third.body.guide.id}.json`, { token })).body.number).toBe(3);
  });

  it('lists shippings by the documented filters, expanded, paged by at most 50', async () => {
    await start();
    const ids: number[] = [];
    for (let i = 0; i < 53; i++) ids.push((await post(`l-${i}`, { recipient: `R${i}` })).body.id);
    await post('other-type', { shippingTypeId: 6 });
    await post('other-office', { officeId: 2, details: [{ comment: 'Cajas', quantity: 1, netUnitValue: 0 }] });
    await post('other-day', { emissionDate: DAY + 86_400 });
    const first = (await call(fake, 'GET', `/v1/shippings.json?shippingdate=${DAY}&officeid=1&shippingtypeid=1&expand=[guide,details]&limit=100`, { token })).body;
    expect([first.count, first.limit, first.offset, first.items.length]).toEqual([53, 50, 0, 50]);
    expect(first.next).toContain('offset=50');
    expect(first.items.map((s: any) => s.id)).toEqual(ids.slice(0, 50));
    expect(first.items[0].guide).toMatchObject({ number: expect.any(Number), document_type: { id: '8' } });
    expect(first.items[0].details.items.map((d: any) => [d.quantity, d.variant?.id ?? null, d.note])).toEqual([[1, '1', ''], [3, null, 'Cajas retornables']]);
    const rest = (await call(fake, 'GET', `/v1/shippings.json?shippingdate=${DAY}&officeid=1&shippingtypeid=1&offset=50`, { token })).body;
    expect([rest.items.map((s: any) => s.recipient), rest.next]).toEqual([['R50', 'R51', 'R52'], undefined]);
    expect(rest.items[0].guide).toEqual({ href: expect.any(String), id: expect.any(String) });
    expect((await call(fake, 'GET', '/v1/shippings.json?shippingtypeid=6', { token })).body.count).toBe(1);
    expect((await call(fake, 'GET', `/v1/shippings.json?shippingdate=${DAY + 86_400}`, { token })).body.count).toBe(1);
    expect((await call(fake, 'GET', '/v1/shippings.json', { token: otherToken })).body.count).toBe(0);
  });

  it('an internal transfer (useDestinationOffice 1) needs destinationOfficeId, another office, and names no client', async () => {
    await start();
    const internal = { shippingTypeId: 5, clientId: undefined };
    expect((await post('t-1', internal)).body.error).toBe('destinationOfficeId is required for an internal transfer');
    expect((await post('t-2', { ...internal, destinationOfficeId: 1 })).status).toBe(400);
    expect((await post('t-3', { ...internal, destinationOfficeId: 4 })).status).toBe(400); // closed
    expect((await post('t-4', { ...internal, destinationOfficeId: 2, clientId: 2 })).status).toBe(400);
    expect((await post('t-5', { destinationOfficeId: 2 })).status).toBe(400); // a sale has no destination office
    expect(fake.shippings(token)).toHaveLength(0);
    const made = await post('t-6', { ...internal, destinationOfficeId: 2 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(fake.shippings(token).map((s) => s.destinationOfficeId)).toEqual([2]);
    expect((await call(fake, 'GET', `/v1/documents/${made.body.guide.id}.json`, { token })).body.client).toBeNull();
  });

  it('answers 400 {error} for each missing or invalid field, and changes nothing', async () => {
    await start();
    const { address: _a, municipality: _m, city: _c, recipient: _r, ...withoutText } = shippingBody('bad');
    const bad: Record<string, unknown>[] = [
      { documentTypeId: 1 }, // not a guide type
      { documentTypeId: 7 }, // the inactive 52
      { officeId: 4 },
      { emissionDate: DAY + 3600 },
      { shippingTypeId: 9 }, // inactive
      { shippingTypeId: '1' },
      { address: '' },
      { municipality: 5 },
      { clientId: 999 },
      { details: [] },
      { details: [{ variantId: 1, quantity: 0, netUnitValue: 1 }] },
      { details: [{ variantId: 1, quantity: 100_000, netUnitValue: 1 }] }, // more than the office's stock
      { declareSii: 2 },
    ];
    for (const overrides of bad) {
      const answer = await post('bad', overrides);
      expect([answer.status, typeof answer.body.error], JSON.stringify(overrides)).toEqual([400, 'string']);
    }
    for (const field of ['address', 'municipality', 'city', 'recipient']) {
      const answer = await call(fake, 'POST', '/v1/shippings.json', { token, body: { ...withoutText, ...Object.fromEntries(['address', 'municipality', 'city', 'recipient'].filter((f) => f !== field).map((f) => [f, 'x'])) } });
      expect([answer.status, answer.body.error], field).toEqual([400, `${field} must be a string`]);
    }
    expect((await post('bad', { municipality: '', city: '' })).status).toBe(201); // the comuna and city may be unknown
    expect(fake.shippings(token)).toHaveLength(1);
  });

  it('keeps the references an invoice is issued with and serves them', async () => {
    await start();
    const guide = (await call(fake, 'GET', `/v1/documents/${(await post('g-1')).body.guide.id}.json`, { token })).body;
    const references = [{ number: String(guide.number), referenceDate: DAY, codeSii: 52, reason: '' }];
    const invoice = { documentTypeId: 1, officeId: 1, emissionDate: DAY, declareSii: 1, salesId: 'inv-1', clientId: 2, details: [{ variantId: 1, quantity: 1, netUnitValue: 1000, taxId: '[1]' }], references };
    const made = await call(fake, 'POST', '/v1/documents.json', { token, body: invoice });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(fake.references(token, made.body.id)).toEqual(references);
    const served = (await call(fake, 'GET', `/v1/documents/${made.body.id}/references.json`, { token })).body;
    expect(served.items).toEqual([{ href: expect.any(String), id: 1, ...references[0] }]);
    const { codeSii: _code, ...withoutCode } = references[0]!;
    // `dteCodeSii` (the name provider-chile.md used before its correction) is not the provider's: without `codeSii`, 400.
    for (const wrong of [[{ ...references[0], codeSii: '52' }], [{ ...withoutCode, dteCodeSii: 52 }], [{ ...references[0], referenceDate: DAY + 1 }], [{ ...references[0], number: '' }], 'x']) {
      const answer = await call(fake, 'POST', '/v1/documents.json', { token, body: { ...invoice, salesId: 'inv-bad', references: wrong } });
      expect(answer.status, JSON.stringify(wrong)).toBe(400);
    }
  });

  it('faults work on the new routes as on documents: status, timeout_after_apply, hang, reset', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'status', status: 502 });
    expect((await post('f-1')).status).toBe(502);
    expect(fake.shippings(token)).toHaveLength(0);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang', delayMs: 50 });
    await expect(post('f-1')).rejects.toThrow();
    expect(fake.shippings(token)).toHaveLength(0);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'reset' });
    await expect(post('f-1')).rejects.toThrow();
    expect(fake.shippings(token)).toHaveLength(0);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply', delayMs: 50 });
    await expect(post('f-1')).rejects.toThrow();
    expect(fake.shippings(token).map((s) => s.salesId)).toEqual(['f-1']);
    // The provider kept it; a repeat with the same salesId is a second shipping.
    const retry = await post('f-1');
    expect([retry.status, fake.shippings(token).map((s) => s.id)]).toEqual([201, [fake.shippings(token)[0]!.id, retry.body.id]]);
    fake.faults.add({ route: 'GET /v1/shippings.json', kind: 'status', status: 502 });
    expect((await call(fake, 'GET', '/v1/shippings.json', { token })).status).toBe(502);
    fake.faults.add({ route: 'GET /v1/shipping_types.json', kind: 'status', status: 429 });
    expect((await call(fake, 'GET', '/v1/shipping_types.json?state=0', { token })).status).toBe(429);
    fake.faults.add({ route: 'GET /v1/shippings/{id}.json', kind: 'status', status: 500 });
    expect((await call(fake, 'GET', `/v1/shippings/${retry.body.id}.json`, { token })).status).toBe(500);
    expect((await call(fake, 'GET', `/v1/shippings/${retry.body.id}.json`, { token })).status).toBe(200);
  });
});
