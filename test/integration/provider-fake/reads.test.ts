import { afterEach, describe, expect, it } from 'vitest';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { call, COMPANY_A, receipt, startWithCompanies, type Reply } from './client.ts';

let fake: ProviderFake;
afterEach(() => fake?.stop());

/** Follows `next` as the adapter does, page by page. */
const readAll = async (f: ProviderFake, token: string, path: string) => {
  const items: any[] = [];
  const pages: any[] = [];
  let url: string | undefined = `${f.apiUrl}${path}`;
  while (url) {
    const reply: Reply = await call(f, 'GET', url.slice(f.apiUrl.length), { token });
    expect(reply.status).toBe(200);
    pages.push(reply.body);
    items.push(...reply.body.items);
    url = reply.body.next ?? undefined;
  }
  return { items, pages };
};

describe('provider fake: reads', () => {
  it('pages over more than 50 items: default 25, at most 50, next until the last page', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    fake.setRateLimit(null);
    const first = await call(fake, 'GET', '/v1/variants.json', { token: started.tokenA });
    expect(first.body).toMatchObject({ count: 60, limit: 25, offset: 0 });
    expect(first.body.items).toHaveLength(25);

    const { items, pages } = await readAll(fake, started.tokenA, '/v1/variants.json?limit=500');
    expect(pages.map((p) => [p.limit, p.offset, p.items.length])).toEqual([[50, 0, 50], [50, 50, 10]]);
    expect(pages[1].next ?? null).toBeNull();
    expect(new Set(items.map((v) => v.id)).size).toBe(60);
    expect(items[0]).toMatchObject({ id: 1, code: 'SKU-0001', state: 0, product: { id: '100' } });
    expect(typeof items[0].product.id).toBe('string');

    const stocks = await readAll(fake, started.tokenA, '/v1/stocks.json?limit=50');
    expect(stocks.items).toHaveLength(180);
    expect(stocks.items[0]).toMatchObject({ variant: { id: '1' }, office: { id: '1' } });
    expect(stocks.items.every((s) => s.quantityAvailable === s.quantity - s.quantityReserved)).toBe(true);
  });

  it('state=0 leaves out inactive offices, taxes and document types; codeSii is text, empty when not electronic', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    const token = started.tokenA;
    expect((await call(fake, 'GET', '/v1/offices.json?state=0', { token })).body.count).toBe(3);
    expect((await call(fake, 'GET', '/v1/offices.json', { token })).body.count).toBe(4);
    const taxes = (await call(fake, 'GET', '/v1/taxes.json?state=0', { token })).body.items;
    expect(taxes).toEqual([expect.objectContaining({ id: 1, name: 'IVA', percentage: '19.0', code: '14', state: 0 })]);
    const types = (await call(fake, 'GET', '/v1/document_types.json?state=0', { token })).body.items;
    expect(types.map((t: any) => t.codeSii)).toEqual(['33', '34', '39', '41', '61', '', '52']); // the inactive 52 (id 7) left out
    expect(types.find((t: any) => t.codeSii === '').isElectronicDocument).toBe(0);
    expect(types.find((t: any) => t.codeSii === '61').isCreditNote).toBe(1);
  });

  it('clients and their contacts', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    const clients = (await call(fake, 'GET', '/v1/clients.json?limit=50', { token: started.tokenA })).body.items;
    expect(clients).toHaveLength(30);
    expect(clients.some((c: any) => c.code === '')).toBe(true);
    const company = clients.find((c: any) => c.company !== '');
    const contacts = await call(fake, 'GET', `/v1/clients/${company.id}/contacts.json`, { token: started.tokenA });
    expect(contacts.body.items.length).toBeGreaterThan(0);
    expect(contacts.body.items[0]).toEqual(expect.objectContaining({ id: expect.any(Number), firstName: expect.any(String), email: expect.any(String) }));
    expect((await call(fake, 'GET', '/v1/clients/9999/contacts.json', { token: started.tokenA })).status).toBe(404);
  });

  it('serves the catalogue a test gives, without the sandbox-only fields', async () => {
    fake = await startProviderFake();
    const token = fake.addCompany(COMPANY_A, {
      variants: [{ id: 7, description: 'Único', code: 'U-1', barCode: '', state: 0, product: { id: 70 }, version: '3' }],
      clients: [{ id: 1, firstName: 'Ana', lastName: 'Rojas', company: '', code: '', email: '', phone: '', state: 0, contacts: [] }],
    });
    const variants = (await call(fake, 'GET', '/v1/variants.json', { token })).body;
    expect(variants.count).toBe(1);
    expect(variants.items[0]).not.toHaveProperty('version');
    expect(variants.items[0].product.id).toBe('70');
    expect((await call(fake, 'GET', '/v1/clients.json', { token })).body.items[0].contacts).toEqual({ href: `${fake.apiUrl}/v1/clients/1/contacts.json` });
    expect((await call(fake, 'GET', '/v1/offices.json', { token })).body.count).toBe(4); // the rest stays the default
  });

  it('every /v1 route needs a valid access_token header', async () => {
    ({ fake } = await startWithCompanies());
    const missing = await call(fake, 'GET', '/v1/offices.json');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: expect.any(String) });
    expect((await call(fake, 'GET', '/v1/offices.json', { token: 'nope' })).status).toBe(401);
    expect((await call(fake, 'POST', '/v1/documents.json', { token: 'nope', body: receipt('s-1') })).status).toBe(401);
  });

  it("a token sees only its own company's documents", async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    const created = await call(fake, 'POST', '/v1/documents.json', { token: started.tokenA, body: receipt('iso-1') });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call(fake, 'GET', `/v1/documents/${id}.json`, { token: started.tokenA })).status).toBe(200);
    expect((await call(fake, 'GET', `/v1/documents/${id}.json`, { token: started.tokenB })).status).toBe(404);
    expect((await call(fake, 'GET', `/v1/documents/${id}/details.json`, { token: started.tokenB })).status).toBe(404);
    expect((await call(fake, 'GET', '/v1/documents.json', { token: started.tokenB })).body.count).toBe(0);
    // The same salesId in the other company is a different sale.
    expect((await call(fake, 'POST', '/v1/documents.json', { token: started.tokenB, body: receipt('iso-1') })).status).toBe(201);
    expect(fake.documents(started.tokenA)).toHaveLength(1);
    expect(fake.documents(started.tokenB)).toHaveLength(1);
  });

  it('bad paging parameters are a 400', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    expect((await call(fake, 'GET', '/v1/variants.json?limit=-1', { token: started.tokenA })).status).toBe(400);
    expect((await call(fake, 'GET', '/v1/variants.json?offset=abc', { token: started.tokenA })).status).toBe(400);
  });
});
