import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { call, COMPANY_A, DAY, receipt, startWithCompanies } from './client.ts';

let fake: ProviderFake;
let token: string;
afterEach(() => fake?.stop());
const start = async () => {
  const started = await startWithCompanies();
  fake = started.fake;
  token = started.tokenA;
};
const post = (body: unknown) => call(fake, 'POST', '/v1/documents.json', { token, body });

describe('provider fake: POST /v1/documents.json', () => {
  it('creates the document with its folio and the totals the tax authority computes', async () => {
    await start();
    const created = await post(receipt('sale-1'));
    expect(created.status).toBe(201);
    // 2 x 1000 + 2990 net, IVA 19 % on the sum: 948.1 -> 948.
    expect(created.body).toMatchObject({
      number: 1, salesId: 'sale-1', netAmount: 4990, taxAmount: 948, exemptAmount: 0, totalAmount: 5938,
      informedSii: 0, responseMsgSii: null, emissionDate: DAY, document_type: { id: '3' }, office: { id: '1' }, client: null,
    });
    expect(created.body.urlPdf).toMatch(/\.pdf$/);
    const read = await call(fake, 'GET', `/v1/documents/${created.body.id}.json`, { token });
    expect(read.body).toEqual(created.body);
    const details = await call(fake, 'GET', `/v1/documents/${created.body.id}/details.json`, { token });
    expect(details.body.items.map((d: any) => [d.lineNumber, d.quantity, d.netUnitValue, d.variant?.id ?? null, d.note]))
      .toEqual([[1, 2, 1000, 1, ''], [2, 1, 2990, null, 'Despacho a domicilio']]);

    expect((await post(receipt('sale-2'))).body.number).toBe(2);
    expect((await post({ ...receipt('sale-3'), documentTypeId: 1, clientId: 1 })).body.number).toBe(1); // folios per type
  });

  it('a repeated salesId with the same type creates nothing and answers 200 with the earlier document', async () => {
    await start();
    const first = await post(receipt('sale-dup'));
    const again = await post(receipt('sale-dup', { details: [{ comment: 'otra cosa', quantity: 9, netUnitValue: 1 }] }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(fake.documents(token)).toHaveLength(1);
    // The same salesId under another document type is another document.
    const invoice = await post({ ...receipt('sale-dup'), documentTypeId: 1, clientId: 2 });
    expect(invoice.status).toBe(201);
    expect(fake.documents(token).map((d) => d.document_type.id)).toEqual(['3', '1']);
  });

  it('concurrent twins with one salesId make one document', async () => {
    await start();
    const replies = await Promise.all([1, 2, 3].map(() => post(receipt('sale-twin'))));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(fake.documents(token)).toHaveLength(1);
  });

  it.each([
    ['an invoice without clientId', { documentTypeId: 1 }],
    ['an unknown variant', { details: [{ variantId: 999, quantity: 1, netUnitValue: 1, taxId: '[1]' }] }],
    ['a taxId that is a number', { details: [{ comment: 'x', quantity: 1, netUnitValue: 1, taxId: 1 }] }],
    ['an inactive tax', { details: [{ comment: 'x', quantity: 1, netUnitValue: 1, taxId: '[2]' }] }],
    ['a line with neither variantId nor comment', { details: [{ quantity: 1, netUnitValue: 1 }] }],
    ['a zero quantity', { details: [{ comment: 'x', quantity: 0, netUnitValue: 1 }] }],
    ['no lines', { details: [] }],
    ['an emission date that is not 00:00 UTC', { emissionDate: DAY + 3600 }],
    ['a closed office', { officeId: 4 }],
    ['an inactive document type', { documentTypeId: 7 }],
    ['a credit note type', { documentTypeId: 5 }],
  ])('refuses %s with 400 and creates nothing', async (_, overrides) => {
    await start();
    const refused = await post(receipt('sale-bad', overrides));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(fake.documents(token)).toHaveLength(0);
  });

  it('a line without taxes is exempt', async () => {
    await start();
    const created = await post({ ...receipt('sale-exempt'), documentTypeId: 4, details: [{ comment: 'Flete', quantity: 3, netUnitValue: 1500 }] });
    expect(created.body).toMatchObject({ netAmount: 0, exemptAmount: 4500, taxAmount: 0, totalAmount: 4500 });
  });

  it('informedSii follows the company setting', async () => {
    await start();
    fake.setInformedSii(COMPANY_A.clientCode, 2);
    const rejected = await post(receipt('sale-rejected'));
    expect(rejected.body.informedSii).toBe(2);
    expect(rejected.body.responseMsgSii).toEqual(expect.any(String));
    fake.setInformedSii(COMPANY_A.clientCode, 1);
    expect((await post(receipt('sale-sent'))).body.informedSii).toBe(1);
  });

  it('dispatch takes stock once; a retry does not fail on the stock the first attempt took', async () => {
    await start();
    const stock = async () => (await call(fake, 'GET', '/v1/stocks.json?variantid=1&officeid=1', { token })).body.items[0];
    const before = await stock();
    const body = { ...receipt('sale-dispatch'), dispatch: 1, details: [{ variantId: 1, quantity: before.quantityAvailable, netUnitValue: 10, taxId: '[1]' }] };
    expect((await post(body)).status).toBe(201);
    expect(await stock()).toMatchObject({ quantity: before.quantity - before.quantityAvailable, quantityAvailable: 0 });
    expect((await post(body)).status).toBe(200);
    const more = await post({ ...body, salesId: 'sale-dispatch-2' });
    expect(more.status).toBe(400);
    expect(fake.documents(token)).toHaveLength(1);
  });

  it('lists documents with the filters the adapter uses to find a salesId without creating', async () => {
    await start();
    await post(receipt('a'));
    await post({ ...receipt('b'), emissionDate: DAY + 86_400 });
    await post({ ...receipt('c'), documentTypeId: 1, clientId: 3 });
    const list = (query: string) => call(fake, 'GET', `/v1/documents.json?${query}`, { token }).then((r) => r.body.items.map((d: any) => d.salesId));
    expect(await list(`documenttypeid=3&emissiondaterange=[${DAY},${DAY + 86_400}]`)).toEqual(['a', 'b']);
    expect(await list(`emissiondate=${DAY}`)).toEqual(['a', 'c']);
    expect(await list('codesii=33')).toEqual(['c']);
    expect(await list('clientid=3')).toEqual(['c']);
    expect(await list('number=2&documenttypeid=3')).toEqual(['b']);
    expect(await list('officeid=2')).toEqual([]);
  });

  it('a body that is not JSON is a 400', async () => {
    await start();
    const response = await fetch(`${fake.apiUrl}/v1/documents.json`, { method: 'POST', headers: { access_token: token, 'content-type': 'application/json' }, body: '{' });
    expect(response.status).toBe(400);
  });
});
