import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useResolver } from '../../../functions/webhooks/worker/deliver.ts';
import { eventually } from '../../support/receiver.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';

// No private destinations here: the rules of decisions 5 apply as in the cloud.
const stack = useLocalStack();
const url = 'https://hooks.acme-receiver.cl/delivery-ops';
const body = { url, eventTypes: ['distribution.order.created', 'field.stop.delivered'] };
/** Two active destinations may not share a URL: each test's destination gets its own path. */
let made = 0;
const fresh = () => ({ ...body, url: `${url}/${++made}` });

describe('webhook destinations', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin', { mfa: true });
  });

  it('needs an administrator with two-step verification to create one', async () => {
    const noMfa = await tenant.member('admin', { mfa: false });
    const operator = await tenant.member('operator', { mfa: true });
    const refused = await tenant.call(noMfa, 'POST', '/v1/webhooks/endpoints', { body });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('mfa_required');
    expect((await tenant.call(operator, 'POST', '/v1/webhooks/endpoints', { body })).body.code).toBe('role_forbidden');
    expect((await tenant.call(operator, 'GET', '/v1/webhooks/endpoints')).status).toBe(200);
  });

  it('refuses addresses that break the rules with 422 and the reason', async () => {
    for (const bad of ['http://hooks.acme-receiver.cl/x', 'https://10.0.0.8/x', 'https://hooks.acme-receiver.cl:8443/x', 'https://user:pw@hooks.acme-receiver.cl/x', 'https://localhost/x', 'https://2130706433/x']) {
      const response = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { ...body, url: bad } });
      expect(response.status, bad).toBe(422);
      expect(response.body.code).toBe('destination_not_allowed');
      expect(response.body.errors[0].path).toBe('body.url');
    }
    const kinds = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { ...body, eventTypes: ['order.teleported'] } });
    expect(kinds.status).toBe(400);
    expect(kinds.body.errors[0].path).toMatch(/^body\.eventTypes/);
    expect((await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { ...body, eventTypes: [] } })).status).toBe(400);
    expect((await tenant.call(admin, 'GET', '/v1/webhooks/endpoints')).body.items).toEqual([]);
  });

  it('creates, lists, reads and changes one with versions; another tenant sees nothing', async () => {
    const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { ...fresh(), description: 'ERP' } });
    expect(created.status, created.text).toBe(201);
    const endpoint = created.body.endpoint;
    expect(Object.keys(endpoint).sort()).toEqual(
      ['consecutiveFailures', 'createdAt', 'description', 'disabledReason', 'eventTypes', 'id', 'secrets', 'state', 'updatedAt', 'url', 'version'].sort(),
    );
    expect((await tenant.call(admin, 'GET', '/v1/webhooks/endpoints')).body.items.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body).toEqual(endpoint);

    const changed = await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, description: null, eventTypes: ['field.route.finished'] } });
    expect(changed.body).toMatchObject({ version: 2, description: null, eventTypes: ['field.route.finished'] });
    const stale = await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, active: false } });
    expect(stale.status).toBe(409);
    expect(stale.body.currentVersion).toBe(2);
    const disabled = await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 2, active: false } });
    expect(disabled.body).toMatchObject({ state: 'disabled', disabledReason: 'manual', version: 3 });
    const active = await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 3, active: true } });
    expect(active.body).toMatchObject({ state: 'active', disabledReason: null, consecutiveFailures: 0, version: 4 });

    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin', { mfa: true });
    expect((await other.call(otherAdmin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await other.call(otherAdmin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 4, active: false } })).status).toBe(404);
    expect((await other.call(otherAdmin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).status).toBe(404);
    expect((await other.call(otherAdmin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries`)).status).toBe(404);
    expect((await other.call(otherAdmin, 'GET', '/v1/webhooks/endpoints')).body.items).toEqual([]);
  });

  it('shows the query string of a destination URL only to administrators', async () => {
    const withToken = 'https://hooks.acme-receiver.cl/in?token=s3cr3t-receiver-token&tenant=acme';
    const { endpoint } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { ...body, url: withToken } })).body;
    expect(endpoint.url).toBe(withToken);
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body.url).toBe(withToken);
    for (const role of ['viewer', 'operator'] as const) {
      const reader = await tenant.member(role);
      const one = await tenant.call(reader, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`);
      expect(one.status).toBe(200);
      expect(one.body.url).toBe('https://hooks.acme-receiver.cl/in?token=REDACTED&tenant=REDACTED');
      const list = await tenant.call(reader, 'GET', '/v1/webhooks/endpoints');
      expect(list.text).not.toContain('s3cr3t-receiver-token');
    }
  });

  it('rotates the secret with a grace of up to 7 days, listing the retiring one', async () => {
    const { endpoint, secret } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: fresh() })).body;
    const tooLong = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, { body: { version: 1, graceSeconds: 604801 } });
    expect(tooLong.status).toBe(400);
    const rotated = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, { body: { version: 1, graceSeconds: 604800 } });
    expect(rotated.status, rotated.text).toBe(201);
    expect(rotated.body.secret.value).not.toBe(secret.value);
    expect(rotated.body.endpoint.version).toBe(2);
    expect(rotated.body.endpoint.secrets).toEqual([{ id: secret.id, createdAt: secret.createdAt, expiresAt: expect.any(String) }]);
    const grace = new Date(rotated.body.endpoint.secrets[0].expiresAt).getTime() - Date.now();
    expect(grace).toBeGreaterThan(604_700_000);
    expect(grace).toBeLessThanOrEqual(604_800_000);
    const stale = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, { body: { version: 1, graceSeconds: 0 } });
    expect(stale.status).toBe(409);
  });

  it('stores secrets so that a dump of the table does not give them away, yet replays them', async () => {
    const key = crypto.randomUUID();
    const once = fresh();
    const { secret } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: once, idempotencyKey: key })).body;
    const replay = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: once, idempotencyKey: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.secret).toEqual(secret);
    const { Items = [] } = await runAs(OPERATOR, () => table().send(new ScanCommand({ TableName: tableName() })));
    const dump = JSON.stringify(Items);
    expect(dump).not.toContain(secret.value);
    expect(dump).not.toContain(secret.value.slice('whsec_'.length));
    expect(dump).toContain(secret.id);
  });

  describe('at every attempt', () => {
    afterAll(() => useResolver(undefined));

    it('checks the resolved address again: a public name that resolves privately is blocked', async () => {
      // DNS can change after the destination was accepted (rebinding): the attempt resolves once,
      // checks, and records destination_blocked without connecting.
      useResolver({ resolve: async () => ['10.0.0.5'] });
      const { endpoint } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: fresh() })).body;
      const delivery = (await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).body;
      const attempted = await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${delivery.id}`), (r) => r.body.attempts >= 1);
      expect(attempted.body).toMatchObject({ lastOutcome: 'destination_blocked', lastStatus: null, state: 'pending' });
      expect(attempted.body.attemptLog[0]).toMatchObject({ outcome: 'destination_blocked', statusCode: null });
    });
  });
});
