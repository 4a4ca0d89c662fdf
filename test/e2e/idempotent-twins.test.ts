import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalGateway } from '../../infra/local/gateway.ts';
import type { LocalStack } from '../../infra/local/stack.ts';
import { call, TestTenant, type TestMember } from '../support/api.ts';
import { holdNext, pausedRotation } from '../support/paused-handler.ts';
import { Receiver } from '../support/receiver.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1' } });
const receiver = new Receiver();
// A second gateway in front of the same table whose rotation waits where the test says.
const paused = new LocalGateway([{ name: 'webhooks', entry: 'test/support/paused-handler.ts', operations: [pausedRotation], table: { items: ['GetItem', 'PutItem', 'UpdateItem'] } }]);
let pausedStack: LocalStack;
let tenant: TestTenant;
let admin: TestMember;

beforeAll(async () => {
  await receiver.start();
  pausedStack = { ...stack(), baseUrl: `http://127.0.0.1:${await paused.listen(0)}` };
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
});
afterAll(async () => {
  await paused.close();
  await receiver.stop();
});

/** Waits until the held request is at the operation's door; fails at once if it was answered before. */
const atTheDoor = (reached: Promise<void>, request: Promise<{ status: number; text: string }>): Promise<void> =>
  Promise.race([reached, request.then((r) => Promise.reject(new Error(`answered before reaching the operation: ${r.status} ${r.text}`)))]);

let endpoints = 0;
/** A destination of its own each time: a second active one with the same URL is refused. */
const newEndpoint = async (): Promise<{ id: string }> => {
  const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/${++endpoints}`, eventTypes: ['field.route.started'] } });
  expect(created.status, created.text).toBe(201);
  return created.body.endpoint;
};

describe('idempotent twins', () => {
  it('replays the twin that committed between the idempotency check and the operation’s reads, instead of 409', async () => {
    const endpoint = await newEndpoint();
    const key = randomUUID();
    const rotation = { body: { version: 1, graceSeconds: 0 }, idempotencyKey: key, token: admin.token, tenantId: tenant.id };
    const path = `/v1/webhooks/endpoints/${endpoint.id}/secrets`;

    const hold = holdNext();
    const late = call(pausedStack, 'POST', path, rotation);
    await atTheDoor(hold.reached, late);
    // The late twin has found no record; now its twin commits (version 1 -> 2) ...
    const first = await call(stack(), 'POST', path, rotation);
    expect(first.status, first.text).toBe(201);
    // ... and the late one reads version 2, which its body's version 1 no longer matches.
    hold.open();
    const second = await late;
    expect(second.status, second.text).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    const after = (await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body;
    expect(after.version).toBe(2);
  });

  it('answers 12 concurrent twins of a rotation with one answer: the rotation, its replays, or 409 in progress', async () => {
    const endpoint = await newEndpoint();
    const rotation = { body: { version: 1, graceSeconds: 0 }, idempotencyKey: randomUUID(), token: admin.token, tenantId: tenant.id };
    const responses = await Promise.all(Array.from({ length: 12 }, () => call(stack(), 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, rotation)));
    const rotated = responses.filter((r) => r.status === 201);
    expect(responses.filter((r) => r.status !== 201).map((r) => r.body.code).filter((code) => code !== 'idempotency_in_progress')).toEqual([]);
    expect(rotated.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(new Set(rotated.map((r) => r.body.secret.value)).size).toBe(1);
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body.version).toBe(2);
  });

  it('still refuses a request whose key is fresh, and one whose key was used for another request', async () => {
    const endpoint = await newEndpoint();
    const path = `/v1/webhooks/endpoints/${endpoint.id}/secrets`;
    const key = randomUUID();
    expect((await call(stack(), 'POST', path, { body: { version: 1, graceSeconds: 0 }, idempotencyKey: key, token: admin.token, tenantId: tenant.id })).status).toBe(201);
    const stale = await call(stack(), 'POST', path, { body: { version: 1, graceSeconds: 0 }, idempotencyKey: randomUUID(), token: admin.token, tenantId: tenant.id });
    expect(stale.status, stale.text).toBe(409);
    expect(stale.body.code).toBe('version_mismatch');

    // Another request takes this one's key while it waits: the key's reuse (422) is the answer, not 409.
    const other = { body: { version: 1, graceSeconds: 60 }, idempotencyKey: randomUUID(), token: admin.token, tenantId: tenant.id };
    const hold = holdNext();
    const late = call(pausedStack, 'POST', path, other);
    await atTheDoor(hold.reached, late);
    expect((await call(stack(), 'POST', path, { ...other, body: { version: 2, graceSeconds: 0 } })).status).toBe(201);
    hold.open();
    const reused = await late;
    expect(reused.status, reused.text).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  });
});
