import { afterEach, describe, expect, it } from 'vitest';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { call, COMPANY_A, COMPANY_B, receipt, startWithCompanies } from './client.ts';

let fake: ProviderFake;
let token: string;
afterEach(() => fake?.stop());
const start = async () => {
  const started = await startWithCompanies();
  fake = started.fake;
  token = started.tokenA;
  return started;
};
const post = (salesId: string, signal?: AbortSignal) => call(fake, 'POST', '/v1/documents.json', { token, body: receipt(salesId), signal });
const CLIENT_GIVES_UP_MS = 300;

describe('provider fake: faults', () => {
  it('status answers before the route applies anything, as many times as asked', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'status', status: 502, times: 2 });
    expect(await post('s-1')).toMatchObject({ status: 502, body: { error: expect.any(String) } });
    expect((await post('s-1')).status).toBe(502);
    expect(fake.documents(token)).toHaveLength(0);
    expect((await post('s-1')).status).toBe(201);
  });

  it('routes match exactly, by {id} segment, or everything with *', async () => {
    await start();
    const id = (await post('s-1')).body.id;
    fake.faults.add({ route: 'GET /v1/documents/{id}.json', kind: 'status', status: 500 });
    expect((await call(fake, 'GET', '/v1/offices.json', { token })).status).toBe(200);
    expect((await call(fake, 'GET', `/v1/documents/${id}.json`, { token })).status).toBe(500);
    expect((await call(fake, 'GET', `/v1/documents/${id}.json`, { token })).status).toBe(200);
    fake.faults.add({ route: '*', kind: 'status', status: 429 });
    expect((await call(fake, 'GET', '/v1/taxes.json', { token })).status).toBe(429);
    fake.faults.add({ route: '*', kind: 'status', status: 500, times: 5 });
    fake.faults.clear();
    expect((await call(fake, 'GET', '/v1/taxes.json', { token })).status).toBe(200);
  });

  it('timeout_after_apply creates the document and never answers; the retry finds it', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'timeout_after_apply' });
    await expect(post('s-1', AbortSignal.timeout(CLIENT_GIVES_UP_MS))).rejects.toThrow();
    expect(fake.documents(token).map((d) => d.salesId)).toEqual(['s-1']);
    const retry = await post('s-1');
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(fake.documents(token)[0].id);
  });

  it('timeout_after_apply with delayMs drops the connection after applying', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'timeout_after_apply', delayMs: 50 });
    await expect(post('s-1')).rejects.toThrow();
    expect(fake.documents(token)).toHaveLength(1);
  });

  it('hang never answers and applies nothing', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'hang' });
    await expect(post('s-1', AbortSignal.timeout(CLIENT_GIVES_UP_MS))).rejects.toThrow();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'hang', delayMs: 50 });
    await expect(post('s-1')).rejects.toThrow();
    expect(fake.documents(token)).toHaveLength(0);
    expect(fake.requests.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/v1/documents.json', status: 0 },
      { method: 'POST', path: '/v1/documents.json', status: 0 },
    ]);
  });

  it('reset drops the connection at once and applies nothing', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'reset' });
    await expect(post('s-1')).rejects.toThrow();
    expect(fake.documents(token)).toHaveLength(0);
    expect((await post('s-1')).status).toBe(201);
  });

  it('delay answers normally, late; the effect is applied when the request arrives', async () => {
    await start();
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'delay', delayMs: 100 });
    expect((await post('s-1')).status).toBe(201);
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'delay', delayMs: 10_000 });
    await expect(post('s-2', AbortSignal.timeout(CLIENT_GIVES_UP_MS))).rejects.toThrow();
    expect(fake.documents(token).map((d) => d.salesId)).toEqual(['s-1', 's-2']);
  });

  it('faults reach the OAuth exchange too, and a failed exchange leaves the code usable', async () => {
    await start();
    const code = await fake.approve(COMPANY_A.clientCode);
    fake.faults.add({ route: 'POST /gateway/oauth_response.json', kind: 'status', status: 502 });
    const exchange = () => fetch(`${fake.oauthUrl}/gateway/oauth_response.json`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, usrToken: fake.userToken, appId: fake.appId }),
    });
    expect((await exchange()).status).toBe(502);
    expect(await (await exchange()).json()).toMatchObject({ code: 200 });
  });

  it('times: Infinity keeps a fault until clear, e.g. a blocked account (402)', async () => {
    await start();
    fake.faults.add({ route: 'GET /v1/clients/{id}/contacts.json', kind: 'status', status: 402, times: Infinity });
    for (const id of [1, 2, 3]) expect((await call(fake, 'GET', `/v1/clients/${id}/contacts.json`, { token })).status).toBe(402);
    fake.faults.clear();
    expect((await call(fake, 'GET', '/v1/clients/1/contacts.json', { token })).status).toBe(200);
  });

  it('rejects a status fault without an error status', async () => {
    await start();
    expect(() => fake.faults.add({ route: '*', kind: 'status', status: 200 })).toThrow();
  });
});

describe('provider fake: rate limit', () => {
  it('answers 429 above the rate per token, creates nothing then, and lets the next second through', async () => {
    let clock = 1_800_000_000_000;
    fake = await startProviderFake({ now: () => clock });
    token = fake.addCompany(COMPANY_A);
    const other = fake.addCompany(COMPANY_B);
    for (let i = 0; i < 10; i++) expect((await call(fake, 'GET', '/v1/offices.json', { token })).status).toBe(200);
    const over = await call(fake, 'POST', '/v1/documents.json', { token, body: receipt('s-1') });
    expect(over).toMatchObject({ status: 429, body: { error: expect.any(String) } });
    expect(over.headers.get('retry-after')).toBe('1');
    expect(fake.documents(token)).toHaveLength(0);
    expect((await call(fake, 'GET', '/v1/offices.json', { token: other })).status).toBe(200);
    clock += 1000;
    expect((await call(fake, 'POST', '/v1/documents.json', { token, body: receipt('s-1') })).status).toBe(201);
  });

  it('follows setRateLimit, and null turns it off', async () => {
    const clock = 1_800_000_000_000;
    fake = await startProviderFake({ now: () => clock });
    token = fake.addCompany(COMPANY_A);
    fake.setRateLimit(2);
    const statuses = async (n: number) => {
      const seen: number[] = [];
      for (let i = 0; i < n; i++) seen.push((await call(fake, 'GET', '/v1/taxes.json', { token })).status);
      return seen;
    };
    expect(await statuses(3)).toEqual([200, 200, 429]);
    fake.setRateLimit(null);
    expect(new Set(await statuses(30))).toEqual(new Set([200]));
    expect(fake.requests.filter((r) => r.status === 429)).toHaveLength(1);
  });
});
