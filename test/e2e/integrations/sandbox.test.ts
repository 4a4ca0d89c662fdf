import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { approve, bindingHash, connectSandbox, RUT } from './support.ts';

const stack = useLocalStack();
const settings = (version: number, over: Record<string, unknown> = {}) => ({
  version,
  officeId: '2',
  vatTaxId: '1',
  documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' },
  ...over,
});

describe('sandbox connection', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
  });

  it('authorizes, approves on the public page with a 302 and completes into a connection', async () => {
    const created = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: '76.086.428-5', name: 'Ventas Maule' } });
    expect(created.status, created.text).toBe(201);
    const authorization = created.body;
    expect(Object.keys(authorization).sort()).toEqual(['authorizeUrl', 'bindingSecret', 'clientCode', 'expiresAt', 'id', 'name'].sort());
    expect(authorization.clientCode).toBe(RUT.a);
    expect(authorization.bindingSecret).toMatch(/^[0-9a-f]{64}$/);
    const minutes = (Date.parse(authorization.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(14);
    expect(minutes).toBeLessThanOrEqual(15);
    expect(authorization.authorizeUrl.startsWith(`${stack().baseUrl}/v1/integrations/sandbox/authorize?`)).toBe(true);

    const page = await fetch(authorization.authorizeUrl, { redirect: 'manual' });
    expect(page.status).toBe(302);
    const location = new URL(page.headers.get('location')!);
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9._~-]{8,512}$/);
    // Following the redirect lands on a page that shows the code.
    const landing = await fetch(location);
    expect(landing.status).toBe(200);
    expect((await landing.json()).code).toBe(location.searchParams.get('code'));

    const connection = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code: location.searchParams.get('code'), bindingSecret: authorization.bindingSecret } });
    expect(connection.status, connection.text).toBe(201);
    expect(connection.body).toMatchObject({ origin: 'sandbox-v1', clientCode: RUT.a, name: 'Ventas Maule', state: 'active', issueSettings: null, version: 1 });
    expect(Object.keys(connection.body).sort()).toEqual(['clientCode', 'createdAt', 'id', 'issueSettings', 'name', 'origin', 'state', 'updatedAt', 'version'].sort());
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.body.id}`)).body).toEqual(connection.body);
    const list = await tenant.call(admin, 'GET', '/v1/integrations/connections');
    expect(list.body).toEqual({ items: [connection.body], nextCursor: null });
  });

  it('normalises the RUT and refuses a wrong check digit with 422 invalid_client_code', async () => {
    const k = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: '10.000.013-k', name: 'K' } });
    expect(k.body.clientCode).toBe(RUT.k);
    const bare = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: '760864285', name: 'bare' } });
    expect(bare.body.clientCode).toBe(RUT.a);
    for (const bad of ['76.086.428-4', '07608642-85', '1-2-3', 'abc-5']) {
      const refused = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: bad, name: 'x' } });
      expect(refused.status, bad).toBe(422);
      expect(refused.body.code).toBe('invalid_client_code');
      expect(refused.body.errors[0].path).toBe('body.clientCode');
    }
    expect((await fetch(`${stack().baseUrl}/v1/integrations/sandbox/authorize?client_code=76086428-4`, { redirect: 'manual' })).status).toBe(422);
  });

  it('answers each completion error of decisions 10', async () => {
    const created = (await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: RUT.a, name: 'errors' } })).body;
    const code = await approve(created.authorizeUrl);
    const complete = (body: Record<string, unknown>) => tenant.call(admin, 'POST', '/v1/integrations/connections', { body });

    const unknown = await complete({ code, bindingSecret: 'a'.repeat(64) });
    expect([unknown.status, unknown.body.code]).toEqual([422, 'authorization_not_found']);
    const refused = await complete({ code: 'not-a-sandbox-code', bindingSecret: created.bindingSecret });
    expect([refused.status, refused.body.code]).toEqual([422, 'authorization_refused']);
    const otherCompany = await approve(`${stack().baseUrl}/v1/integrations/sandbox/authorize?client_code=${RUT.b}`);
    const mismatch = await complete({ code: otherCompany, bindingSecret: created.bindingSecret });
    expect([mismatch.status, mismatch.body.code]).toEqual([422, 'client_code_mismatch']);
    // None of the refusals used the authorization up.
    expect((await complete({ code, bindingSecret: created.bindingSecret })).status).toBe(201);
    const reused = await complete({ code, bindingSecret: created.bindingSecret });
    expect([reused.status, reused.body.code]).toEqual([409, 'authorization_used']);

    const late = (await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: RUT.a, name: 'late' } })).body;
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.providerAuthorization(tenant.id, bindingHash(late.bindingSecret)),
        UpdateExpression: 'SET openUntil = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const expired = await complete({ code: await approve(late.authorizeUrl), bindingSecret: late.bindingSecret });
    expect([expired.status, expired.body.code]).toEqual([410, 'authorization_expired']);
  });

  it('replays both creates for the same idempotency key, and lets one of two racing completions win', async () => {
    const key = randomUUID();
    const body = { clientCode: RUT.b, name: 'idem' };
    const first = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body, idempotencyKey: key });
    const again = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { ...body, name: 'other' }, idempotencyKey: key })).body.code).toBe('idempotency_key_reused');

    const code = await approve(first.body.authorizeUrl);
    const completion = { code, bindingSecret: first.body.bindingSecret };
    const completionKey = randomUUID();
    const made = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: completion, idempotencyKey: completionKey });
    const replay = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: completion, idempotencyKey: completionKey });
    expect(made.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(made.body);

    const racing = (await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: RUT.a, name: 'race' } })).body;
    const raceCode = await approve(racing.authorizeUrl);
    const answers = await Promise.all(
      [1, 2, 3].map(() => tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code: raceCode, bindingSecret: racing.bindingSecret } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const connections = (await tenant.call(admin, 'GET', '/v1/integrations/connections?limit=100')).body.items;
    expect(connections.filter((c: { name: string }) => c.name === 'race')).toHaveLength(1);
  });

  it('reads the options live and saves settings that fit them, naming each field that does not', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const options = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect(options.status, options.text).toBe(200);
    expect(options.body.offices.map((o: { id: string }) => o.id)).toEqual(['1', '2', '3']); // the closed office is not offered
    expect(options.body.taxes[0]).toEqual({ id: '1', name: 'IVA', percentage: 19, code: 'IVA' });
    expect(options.body.documentTypes.map((d: { codeSii: string | null }) => d.codeSii)).toEqual(['33', '34', '39', '41', '61', null, '52']);
    expect(options.body.current).toBeNull();

    const bad = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, {
      body: settings(1, { officeId: '4', vatTaxId: '99', documentTypeIds: { receipt: '1', invoice: '6', creditNote: '3' } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_issue_settings');
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      ['body.documentTypeIds.creditNote', 'body.documentTypeIds.invoice', 'body.documentTypeIds.receipt', 'body.officeId', 'body.vatTaxId'].sort(),
    );
    for (const [kind, id] of [['receipt', '4'], ['invoice', '2']] as const) {
      const fits = settings(1, { documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5', [kind]: id } });
      const check = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: { ...fits, version: 99 } });
      expect(check.body.code).toBe('version_mismatch'); // checked first, before the provider is asked
    }

    const saved = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: settings(1, { dispatchStock: true }) });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({ version: 2, issueSettings: { officeId: '2', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' }, dispatchStock: true } });
    const exempt = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, {
      body: settings(2, { documentTypeIds: { receipt: '4', invoice: '2', creditNote: '5' } }),
    });
    expect(exempt.body).toMatchObject({ version: 3, issueSettings: { documentTypeIds: { receipt: '4', invoice: '2' }, dispatchStock: false } });
    const stale = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: settings(2) });
    expect([stale.status, stale.body.currentVersion]).toEqual([409, 3]);
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`)).body.current).toEqual(exempt.body.issueSettings);
  });

  it('revokes: the connection stays readable, the provider operations answer 409 connection_revoked', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const revoked = await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: 1 } });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body).toMatchObject({ state: 'revoked', version: 2 });
    const options = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect([options.status, options.body.code]).toEqual([409, 'connection_revoked']);
    const put = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: settings(2) });
    expect([put.status, put.body.code]).toEqual([409, 'connection_revoked']);
    const twice = await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: 2 } });
    expect([twice.status, twice.body.code]).toEqual([409, 'connection_revoked']);
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}`)).body.state).toBe('revoked');
  });

  it('lets admins manage, every role but driver read, and hides another tenant’s connections', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const operator = await tenant.member('operator');
    const viewer = await tenant.member('viewer');
    const driver = await tenant.member('driver');
    for (const member of [operator, viewer, driver]) {
      const create = await tenant.call(member, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: RUT.a, name: 'x' } });
      expect([create.status, create.body.code]).toEqual([403, 'role_forbidden']);
      const put = await tenant.call(member, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: settings(1) });
      expect(put.status).toBe(403);
      expect((await tenant.call(member, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: 1 } })).status).toBe(403);
    }
    for (const member of [operator, viewer]) {
      expect((await tenant.call(member, 'GET', `/v1/integrations/connections/${connection.id}`)).status).toBe(200);
      expect((await tenant.call(member, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`)).status).toBe(200);
    }
    expect((await tenant.call(driver, 'GET', '/v1/integrations/connections')).status).toBe(403);

    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin');
    for (const path of [`/v1/integrations/connections/${connection.id}`, `/v1/integrations/connections/${connection.id}/issue-options`]) {
      expect((await other.call(otherAdmin, 'GET', path)).status).toBe(404);
    }
    expect((await other.call(otherAdmin, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: 1 } })).status).toBe(404);
    expect((await other.call(otherAdmin, 'GET', '/v1/integrations/connections')).body.items).toEqual([]);
  });

  it('answers the provider route 503 provider_not_configured on a deployment without provider settings', async () => {
    const response = await tenant.call(admin, 'POST', '/v1/integrations/provider/authorizations', { body: { clientCode: RUT.a, name: 'x' } });
    expect([response.status, response.body.code]).toEqual([503, 'provider_not_configured']);
    expect(response.headers.get('retry-after')).toBeTruthy();
  });
});
