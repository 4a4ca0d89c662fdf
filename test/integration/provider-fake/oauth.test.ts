import { afterEach, describe, expect, it } from 'vitest';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { call, COMPANY_A, COMPANY_B, startWithCompanies } from './client.ts';

let fake: ProviderFake;
afterEach(() => fake?.stop());

const loginUrl = (f: ProviderFake, clientCode: string, overrides: Record<string, string> = {}) => {
  const query = new URLSearchParams({ app_id: f.appId, redirect_uri: f.redirectUri, client_code: clientCode, ...overrides });
  return `${f.oauthUrl}/login?${query}`;
};

/** What a browser does: read the consent form and post the chosen button. */
const decide = async (f: ProviderFake, clientCode: string, decision: 'approve' | 'deny') => {
  const page = await fetch(loginUrl(f, clientCode));
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1];
  const form = new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]));
  form.set('decision', decision);
  const answer = await fetch(new URL(action, f.oauthUrl), {
    method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual',
  });
  return { page, html, answer, location: new URL(answer.headers.get('location') ?? 'about:blank') };
};

const exchange = async (f: ProviderFake, body: Record<string, unknown>) => {
  const response = await fetch(`${f.oauthUrl}/gateway/oauth_response.json`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
};

describe('provider fake: OAuth', () => {
  it('approving on the login page redirects with a code that exchanges for the company token', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    const { page, html, answer, location } = await decide(fake, COMPANY_A.clientCode, 'approve');
    expect(page.status).toBe(200);
    expect(html).toContain(COMPANY_A.clientName);
    expect(answer.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(fake.redirectUri);
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[0-9a-f]{32}$/);

    const result = await exchange(fake, { code, usrToken: fake.userToken, appId: fake.appId });
    expect(result).toEqual({ status: 200, body: { code: 200, data: { accessToken: started.tokenA, ...COMPANY_A } } });
    expect((await call(fake, 'GET', '/v1/offices.json', { token: result.body.data.accessToken })).status).toBe(200);
  });

  it('the default redirect target shows the code to paste', async () => {
    ({ fake } = await startWithCompanies());
    const { location } = await decide(fake, COMPANY_A.clientCode, 'approve');
    const shown = await (await fetch(location)).text();
    expect(shown).toContain(location.searchParams.get('code'));
  });

  it('denying redirects with error=access_denied and no code', async () => {
    ({ fake } = await startWithCompanies());
    const { answer, location } = await decide(fake, COMPANY_A.clientCode, 'deny');
    expect(answer.status).toBe(302);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.has('code')).toBe(false);
  });

  it('a code is single-use', async () => {
    ({ fake } = await startWithCompanies());
    const code = await fake.approve(COMPANY_A.clientCode);
    const credentials = { usrToken: fake.userToken, appId: fake.appId };
    expect((await exchange(fake, { code, ...credentials })).body.code).toBe(200);
    const again = await exchange(fake, { code, ...credentials });
    expect(again.status).toBe(200);
    expect(again.body.code).not.toBe(200);
    expect(again.body.data).toBeNull();
  });

  it('unknown and expired codes are refused inside an HTTP 200', async () => {
    let clock = 1_800_000_000_000;
    fake = await startProviderFake({ now: () => clock, codeTtlMs: 60_000 });
    fake.addCompany(COMPANY_A);
    const credentials = { usrToken: fake.userToken, appId: fake.appId };
    const unknown = await exchange(fake, { code: 'not-a-code', ...credentials });
    expect([unknown.status, unknown.body.code]).toEqual([200, 404]);

    const late = await fake.approve(COMPANY_A.clientCode);
    clock += 60_001;
    const expired = await exchange(fake, { code: late, ...credentials });
    expect([expired.status, expired.body.code]).toEqual([200, 410]);

    const inTime = await fake.approve(COMPANY_A.clientCode);
    clock += 59_000;
    expect((await exchange(fake, { code: inTime, ...credentials })).body.code).toBe(200);

    const forced = await fake.approve(COMPANY_A.clientCode);
    fake.expireCodes();
    expect((await exchange(fake, { code: forced, ...credentials })).body.code).toBe(410);
  });

  it('another app or a wrong integrator token is an HTTP 401, and the code stays usable', async () => {
    ({ fake } = await startWithCompanies());
    const code = await fake.approve(COMPANY_A.clientCode);
    expect((await exchange(fake, { code, usrToken: fake.userToken, appId: 'other-app' })).status).toBe(401);
    expect((await exchange(fake, { code, usrToken: 'wrong', appId: fake.appId })).status).toBe(401);
    expect((await exchange(fake, { code, usrToken: fake.userToken, appId: fake.appId })).body.code).toBe(200);
  });

  it('the login page refuses another app, an unregistered redirect and an unknown company', async () => {
    ({ fake } = await startWithCompanies());
    expect((await fetch(loginUrl(fake, COMPANY_A.clientCode, { app_id: 'other-app' }))).status).toBe(400);
    expect((await fetch(loginUrl(fake, COMPANY_A.clientCode, { redirect_uri: 'https://evil.example/cb' }))).status).toBe(400);
    expect((await fetch(loginUrl(fake, '11111111-1'))).status).toBe(404);
  });

  it('approving another company hands out that company, whatever the service asked for', async () => {
    const started = await startWithCompanies();
    fake = started.fake;
    const code = await fake.approve(COMPANY_B.clientCode);
    const result = await exchange(fake, { code, usrToken: fake.userToken, appId: fake.appId });
    expect(result.body.data).toEqual({ accessToken: started.tokenB, ...COMPANY_B });
  });
});
