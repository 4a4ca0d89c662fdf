import { randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { deactivateMember } from '../../shared/tenancy/members.ts';
import { call, TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';

const stack = useLocalStack();

const vehicleBody = () => ({ plate: randomUUID().replace(/-/g, '').slice(0, 8), label: 'Furgón Norte' });

const expectProblem = (response: { status: number; headers: Headers; body: any }, status: number, code: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ status, code, type: `urn:delivery-ops:problem:${code}` });
  expect(typeof response.body.title).toBe('string');
  expect(typeof response.body.detail).toBe('string');
  expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
};

const vehicleCount = async (tenant: TestTenant, member: Parameters<TestTenant['call']>[0]) =>
  (await tenant.call(member, 'GET', '/v1/fleet/vehicles?limit=100')).body.items.length;

describe('400: malformed requests change nothing', () => {
  it('refuses malformed JSON, unknown and ill-typed fields with field paths', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: '{"plate":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    const unknown = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { ...vehicleBody(), colour: 'red' } });
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'body.colour' })]);
    const typed = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 12, label: '' } });
    expect(typed.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.label', 'body.plate']);
    // JSON allows a lone surrogate's escape, but no UTF-8 text holds it: refused, naming where.
    const lone = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: JSON.stringify({ ...vehicleBody(), label: 'x' }).replace('"label":"x"', '"label":"Cami\\ud800n"'), headers: { 'content-type': 'application/json' } });
    expectProblem(lone, 400, 'malformed_json');
    expect(lone.body.detail).toContain('body.label');
    const missing = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', {});
    expect(missing.body.errors).toEqual([{ path: 'body', message: 'A JSON body is required.' }]);
    expect(await vehicleCount(tenant, admin)).toBe(0);
    // A surrogate pair's escapes are text (an emoji).
    const paired = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: JSON.stringify({ ...vehicleBody(), label: 'x' }).replace('"label":"x"', '"label":"Cami\\ud83d\\ude9a"'), headers: { 'content-type': 'application/json' } });
    expect(paired.status, paired.text).toBe(201);
    expect(paired.body.label).toBe('Cami🚚');
  });

  it('refuses bad path and query values', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const path = await tenant.call(admin, 'GET', '/v1/fleet/vehicles/not-a-uuid');
    expectProblem(path, 400, 'validation_failed');
    expect(path.body.errors[0].path).toBe('path.id');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?limit=101')).body.errors[0].path).toBe('query.limit');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?limit=0')).status).toBe(400);
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?limit=ten')).status).toBe(400);
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?after=xyz')).body.errors[0].path).toBe('query.after');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?sort=plate')).body.errors[0].path).toBe('query.sort');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles?limit=100')).status).toBe(200);
    const vehicle = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody() })).body;
    const unknown = await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${vehicle.id}?expand=all`);
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors).toEqual([{ path: 'query.expand', message: 'is not a parameter of this operation' }]);
  });

  it('refuses dates that do not exist in the calendar, creating nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('admin');
    const order = (serviceDate: string) => ({ reference: `PED-${randomUUID()}`, recipient: { name: 'Rosa' }, address: { text: 'Av. Matta 1', latitude: -33.45, longitude: -70.64 }, serviceDate });
    for (const serviceDate of ['2026-02-31', '2026-02-29', '2026-04-31']) {
      const refused = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: order(serviceDate) });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors).toEqual([{ path: 'body.serviceDate', message: 'must be a date that exists in the calendar' }]);
    }
    const plan = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-02-30', routes: [{ orderIds: [randomUUID()] }] } });
    expectProblem(plan, 400, 'validation_failed');
    expect(plan.body.errors[0].path).toBe('body.serviceDate');
    expect((await tenant.call(operator, 'GET', '/v1/distribution/orders')).body.items).toEqual([]);
    expect((await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: order('2028-02-29') })).status).toBe(201);
  });

  it('requires x-tenant-id and idempotency-key as UUIDs', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: admin.token }), 400, 'tenant_header_missing');
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: admin.token, tenantId: 'acme' }), 400, 'tenant_header_invalid');
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody(), idempotencyKey: false }), 400, 'idempotency_key_missing');
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody(), idempotencyKey: 'once' }), 400, 'idempotency_key_invalid');
    expect(await vehicleCount(tenant, admin)).toBe(0);
  });
});

describe('401: the token', () => {
  it('refuses no token, a forged one, an expired one and one for another audience', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const missing = await tenant.call(undefined, 'GET', '/v1/fleet/vehicles');
    expectProblem(missing, 401, 'token_missing');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: stack().devIssuer.jwks.keys[0].kid })
      .setIssuer(stack().issuer)
      .setAudience(stack().audience)
      .setSubject(admin.subject)
      .setExpirationTime('1h')
      .sign(privateKey);
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: forged, tenantId: tenant.id }), 401, 'token_invalid');
    const expired = await stack().devIssuer.mint({ subject: admin.subject, expiresAt: new Date(Date.now() - 60_000) });
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: expired, tenantId: tenant.id }), 401, 'token_expired');
    const tampered = admin.token.replace(/\.([^.]+)\./, (_m, payload: string) => {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      return `.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.`;
    });
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: tampered, tenantId: tenant.id }), 401, 'token_invalid');
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: 'not.a.jwt', tenantId: tenant.id }), 401, 'token_invalid');
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { headers: { authorization: `Basic ${admin.token}` }, tenantId: tenant.id }), 401, 'token_invalid');
  });
});

describe('403: membership and roles', () => {
  it('refuses a removed member at once, although the token is still valid', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
    await runAs(OPERATOR, () => deactivateMember(tenant.id, admin.subject));
    expectProblem(await tenant.call(admin, 'GET', '/v1/fleet/vehicles'), 403, 'not_a_member');
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody() }), 403, 'not_a_member');
  });

  it('refuses a member of another tenant naming this tenant', async () => {
    const tenant = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const outsider = await other.member('admin');
    expectProblem(await call(stack(), 'GET', '/v1/fleet/vehicles', { token: outsider.token, tenantId: tenant.id }), 403, 'not_a_member');
  });
});

describe('413 and 415: the body', () => {
  it('refuses a body over 256 KiB and a body that is not JSON, changing nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const big = JSON.stringify({ plate: 'AA1111', label: 'x'.repeat(256 * 1024) });
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
    expectProblem(
      await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: 'plate=AA1111', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: JSON.stringify(vehicleBody()), headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    expect((await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { rawBody: JSON.stringify(vehicleBody()), headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(201);
    expect(await vehicleCount(tenant, admin)).toBe(1);
  });
});

describe('idempotency', () => {
  it('replays the stored response for the same key and request, 422 for another request', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const key = randomUUID();
    const body = vehicleBody();
    const first = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body, idempotencyKey: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { label: body.label, plate: body.plate }, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody(), idempotencyKey: key }), 422, 'idempotency_key_reused');
    expect(await vehicleCount(tenant, admin)).toBe(1);
    // The key is scoped to the tenant: another tenant may use the same key for its own request.
    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin');
    const theirs = await other.call(otherAdmin, 'POST', '/v1/fleet/vehicles', { body, idempotencyKey: key });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
  });

  it('makes one vehicle from 20 concurrent requests with one key; the others replay or get 409', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const key = randomUUID();
    const body = vehicleBody();
    const responses = await Promise.all(Array.from({ length: 20 }, () => tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body, idempotencyKey: key })));
    const created = responses.filter((r) => r.status === 201);
    const inProgress = responses.filter((r) => r.status === 409);
    expect(created.length + inProgress.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    for (const r of inProgress) expect(r.body.code).toBe('idempotency_in_progress');
    const list = await tenant.call(admin, 'GET', '/v1/fleet/vehicles');
    expect(list.body.items.map((v: { id: string }) => v.id)).toEqual([created[0].body.id]);
  });

  it('lets exactly one of 20 concurrent updates with one version succeed', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const vehicle = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: vehicleBody() })).body;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${vehicle.id}`, { body: { version: 1, label: `Camión ${i}` } })),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(19);
    const after = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${vehicle.id}`)).body;
    expect(after.version).toBe(2);
    expect(after.label).toBe(ok[0].body.label);
  });
});
