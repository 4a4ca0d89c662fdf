import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { useLocalStack } from '../../support/stack.ts';
import { captureLogs, RUT } from './support.ts';
import { routeWithOrders, tokenOf, waitForView } from '../operations/support.ts';

const stack = useLocalStack({ env: { LOG_LEVEL: 'INFO' } });
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:provider-user-token';
const COMPANY = { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' };
const OTHER = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };
const BIG = { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' };

let fake: ProviderFake;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  fake = await startProviderFake();
  fake.setRateLimit(null);
  tokens.company = fake.addCompany(COMPANY);
  tokens.other = fake.addCompany(OTHER);
  // 230 active offices in reverse order: the options must page, sort and stop at the 200 lowest ids.
  tokens.big = fake.addCompany(BIG, { offices: Array.from({ length: 230 }, (_, i) => ({ id: 230 - i, name: `Sucursal ${230 - i}`, state: 0 })) });
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets, SECRET_ARN);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});
beforeEach(() => fake.faults.clear());

describe('provider connection through the real adapter and the fake provider', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  const authorize = async (clientCode = COMPANY.clientCode) => {
    const response = await tenant.call(admin, 'POST', '/v1/integrations/provider/authorizations', { body: { clientCode, name: 'Facturación' } });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: string; authorizeUrl: string; bindingSecret: string; clientCode: string };
  };
  const complete = (code: string, bindingSecret: string) => tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code, bindingSecret } });

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
  });

  it('walks the provider’s consent page to a code and completes into a connection', async () => {
    const authorization = await authorize();
    const url = new URL(authorization.authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.oauthUrl}/login`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ app_id: fake.appId, redirect_uri: fake.redirectUri, client_code: COMPANY.clientCode });

    const consent = await fetch(authorization.authorizeUrl, { redirect: 'manual' });
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain(COMPANY.clientName);
    const form = new URLSearchParams({ ...Object.fromEntries(url.searchParams), decision: 'approve' });
    const approved = await fetch(`${fake.oauthUrl}/login`, { method: 'POST', body: form, redirect: 'manual' });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;

    const connection = await complete(code, authorization.bindingSecret);
    expect(connection.status, connection.text).toBe(201);
    expect(connection.body).toMatchObject({ origin: 'provider-chile-v1', clientCode: COMPANY.clientCode, name: 'Facturación', state: 'active', version: 1 });
    const exchange = fake.requests.filter((r) => r.path.includes('oauth_response'));
    expect(exchange.at(-1)).toMatchObject({ method: 'POST', status: 200 });
  });

  it('answers refused, other company, expired, reused and unknown-secret completions as decisions 10 says', async () => {
    const authorization = await authorize();
    const refused = await complete('0123456789abcdef0123', authorization.bindingSecret);
    expect([refused.status, refused.body.code]).toEqual([422, 'authorization_refused']);
    const mismatch = await complete(await fake.approve(OTHER.clientCode), authorization.bindingSecret);
    expect([mismatch.status, mismatch.body.code]).toEqual([422, 'client_code_mismatch']);
    const stale = await fake.approve(COMPANY.clientCode);
    fake.expireCodes();
    const expired = await complete(stale, authorization.bindingSecret);
    expect([expired.status, expired.body.code]).toEqual([422, 'authorization_refused']);
    const unknown = await complete(await fake.approve(COMPANY.clientCode), 'f'.repeat(64));
    expect([unknown.status, unknown.body.code]).toEqual([422, 'authorization_not_found']);

    const code = await fake.approve(COMPANY.clientCode);
    expect((await complete(code, authorization.bindingSecret)).status).toBe(201);
    const used = await complete(await fake.approve(COMPANY.clientCode), authorization.bindingSecret);
    expect([used.status, used.body.code]).toEqual([409, 'authorization_used']);
    // The provider's codes are single use: the same code on a fresh authorization is refused.
    const second = await authorize();
    const reused = await complete(code, second.bindingSecret);
    expect([reused.status, reused.body.code]).toEqual([422, 'authorization_refused']);
  });

  it('answers 503 when the provider cannot answer, and the authorization stays open', async () => {
    const authorization = await authorize();
    const code = await fake.approve(COMPANY.clientCode);
    for (const fault of [{ kind: 'status', status: 502 }, { kind: 'status', status: 429 }, { kind: 'reset' }] as const) {
      fake.faults.add({ route: 'POST /gateway/oauth_response.json', ...fault });
      const response = await complete(code, authorization.bindingSecret);
      expect([response.status, response.body.code], fault.kind).toEqual([503, 'provider_unavailable']);
      expect(response.headers.get('retry-after')).toBeTruthy();
    }
    expect((await complete(code, authorization.bindingSecret)).status).toBe(201);
  });

  it('reads options over several pages, the 200 lowest ids, with the non-electronic type as codeSii null', async () => {
    const authorization = await authorize(BIG.clientCode);
    const connection = (await complete(await fake.approve(BIG.clientCode), authorization.bindingSecret)).body;
    const options = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect(options.status, options.text).toBe(200);
    expect(options.body.offices).toHaveLength(200);
    expect(options.body.offices.map((o: { id: string }) => Number(o.id))).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const officeReads = fake.requests.filter((r) => r.path.startsWith('/v1/offices.json'));
    expect(officeReads.length).toBeGreaterThanOrEqual(5);
    expect(officeReads.every((r) => /limit=50/.test(r.path) && /state=0/.test(r.path))).toBe(true);
    expect(options.body.documentTypes).toContainEqual({ id: '6', name: 'NOTA DE VENTA', codeSii: null });
    expect(options.body.documentTypes.map((d: { id: string }) => d.id)).not.toContain('7'); // inactive
    expect(options.body.taxes).toEqual([{ id: '1', name: 'IVA', percentage: 19, code: '14' }]);

    const put = (body: Record<string, unknown>) => tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body });
    const wrong = await put({ version: 1, officeId: '229', vatTaxId: '2', documentTypeIds: { receipt: '6', invoice: '1', creditNote: '5' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.documentTypeIds.receipt', 'body.officeId', 'body.vatTaxId']);
    const saved = await put({ version: 1, officeId: '200', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.version).toBe(2);
    expect(saved.body.issueSettings).toMatchObject({ documentTypeIds: { dispatchGuide: null }, shippingTypeIds: null });

    // Dispatch guides (decisions 14): the shipping types read live (the fake's 9 is inactive), a 52 type and codeSii 1, 5, 6.
    expect(options.body.shippingTypes.map((t: { id: string }) => t.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(options.body.shippingTypes).toContainEqual({ id: '5', name: 'Traslados internos', codeSii: '5' });
    expect(fake.requests.some((r) => /^\/v1\/shipping_types\.json\?.*state=0/.test(r.path))).toBe(true);
    const guideBody = { version: 2, officeId: '200', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5', dispatchGuide: '7' }, shippingTypeIds: { sale: '1', internalTransfer: '6', otherTransfer: '6' } };
    const wrongGuide = await put(guideBody); // 7 is the fake's inactive 52 type; 6 is not an internal transfer
    expect(wrongGuide.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.documentTypeIds.dispatchGuide', 'body.shippingTypeIds.internalTransfer']);
    const guides = await put({ ...guideBody, documentTypeIds: { ...guideBody.documentTypeIds, dispatchGuide: '8' }, shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' } });
    expect(guides.status, guides.text).toBe(200);
    expect(guides.body).toMatchObject({ version: 3, issueSettings: { documentTypeIds: { dispatchGuide: '8' }, shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' } } });

    fake.faults.add({ route: 'GET /v1/taxes.json', kind: 'status', status: 429 });
    const limited = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect([limited.status, limited.body.code]).toEqual([503, 'provider_unavailable']);
    fake.faults.add({ route: 'GET /v1/shipping_types.json', kind: 'status', status: 502 });
    const shippingDown = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect([shippingDown.status, shippingDown.body.code]).toEqual([503, 'provider_unavailable']);
    fake.faults.add({ route: 'GET /v1/offices.json', kind: 'status', status: 401 });
    const rejected = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect([rejected.status, rejected.body.code]).toEqual([409, 'connection_unauthorized']);
  });

  it('never stores or logs the access token or the binding secret', async () => {
    let secret = '';
    let connectionId = '';
    const logged = await captureLogs(async () => {
      const authorization = await authorize(OTHER.clientCode);
      secret = authorization.bindingSecret;
      const replay = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code: 'x'.repeat(20), bindingSecret: secret } });
      expect(replay.status).toBe(422);
      const made = await complete(await fake.approve(OTHER.clientCode), secret);
      connectionId = made.body.id;
      expect(JSON.stringify(made.body)).not.toContain(tokens.other);
      await tenant.call(admin, 'GET', `/v1/integrations/connections/${connectionId}/issue-options`);
      fake.faults.add({ route: 'GET /v1/offices.json', kind: 'status', status: 500 });
      await tenant.call(admin, 'GET', `/v1/integrations/connections/${connectionId}/issue-options`);
    });
    expect(logged).toContain(tenant.id); // the capture did see the handlers' lines
    const { Items = [] } = await table().send(new ScanCommand({ TableName: tableName() }));
    const dump = JSON.stringify(Items);
    expect(dump).toContain(connectionId);
    for (const value of [tokens.other!, secret, fake.userToken]) {
      expect(dump).not.toContain(value);
      expect(logged).not.toContain(value);
    }
  });

  it('never stores or logs the receiver of goods (name and RUT) outside the stop: not in logs, audit entries, events or the tracking view', async () => {
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const receiver = { name: 'Ximena Receptora Olguín', rut: '21.345.613-k', place: 'Andén 4' };
    const normal = '21345613-K';
    const { orders, route } = await routeWithOrders(tenant, operator, driver, [[-33.44, -70.65]]);
    let delivered: Record<string, unknown> = {};
    const logged = await captureLogs(async () => {
      expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
      const evidence = [{ kind: 'signature', reference: 'signatures/andén-4.png' }];
      const refused = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: { evidence, receivedBy: { ...receiver, rut: '21.345.613-1' } } });
      expect(refused.body.code).toBe('invalid_rut');
      const answer = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: { evidence, receivedBy: receiver } });
      expect(answer.status, answer.text).toBe(200);
      delivered = answer.body;
      await tenant.call(admin, 'GET', `/v1/field/routes/${route.id}`);
      await waitForView(stack(), tokenOf(orders[0]), (v) => v.state === 'delivered');
    });
    expect(delivered.receivedBy).toMatchObject({ name: receiver.name, rut: normal });
    expect(logged).toContain('"code":"invalid_rut"'); // the capture did see the field handler's lines
    const { Items = [] } = await table().send(new ScanCommand({ TableName: tableName() }));
    const holding = Items.filter((item) => [receiver.name, normal, '21.345.613', '21345613', receiver.place].some((value) => JSON.stringify(item).includes(value)));
    // Only the stop's receipt item keeps it (decisions 16: with its TTL): no audit entry, outbox event, tracking view or webhook delivery does.
    expect(holding.map((item) => [item.entity, item.stopId])).toEqual([['stopReceipt', route.stops[0].id]]);
    expect(Items.some((item) => item.entity === 'audit' && item.resourceId === route.stops[0].id)).toBe(true);
    expect(Items.some((item) => item.entity === 'event' && item.type === 'field.stop.delivered')).toBe(true);
    expect(Items.some((item) => item.entity === 'tracking-view' && item.orderId === orders[0].id)).toBe(true);
    for (const value of [receiver.name, normal, '21.345.613', '21345613', '21.345.613-1', receiver.place]) expect(logged).not.toContain(value);
  });
});
