import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteEndpoint } from '../../../functions/webhooks/endpoints.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { commit, ReadOutdatedError } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { eventually, Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';

// A failed first attempt leaves the delivery pending for a minute: long enough to delete under it.
const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_RETRY_DELAYS: '60,60,60,60,60,60,60', WEBHOOK_MAX_ACTIVE_ENDPOINTS: '3' } });
const receiver = new Receiver();
let tenant: TestTenant;
let admin: TestMember;

beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
// Each case its own company: the active-destination limit is per company.
beforeEach(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
});

const eventTypes = ['distribution.order.created'];
const create = (url: string) => tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url, eventTypes } });
const remove = (id: string, member = admin, idempotencyKey: string = randomUUID()) => tenant.call(member, 'DELETE', `/v1/webhooks/endpoints/${id}`, { idempotencyKey });

describe('DELETE /v1/webhooks/endpoints/{id} (decisions 5)', () => {
  it('answers 204; the destination is gone, its pending delivery ends dead (destination_deleted) and stays readable', async () => {
    receiver.reply = (r) => ({ status: r.path.endsWith('/doomed') ? 500 : 204 });
    const endpoint = (await create(`${receiver.url}/doomed`)).body.endpoint;
    const delivery = (await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).body;
    await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${delivery.id}`), (r) => r.body.attempts === 1 && r.body.state === 'pending');
    const requestsBefore = receiver.received.length;

    const deleted = await remove(endpoint.id);
    expect(deleted.status, deleted.text).toBe(204);
    expect(deleted.text).toBe('');
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await tenant.call(admin, 'GET', '/v1/webhooks/endpoints')).body.items.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries`)).status).toBe(404);

    const ended = await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${delivery.id}`), (r) => r.body.state === 'dead');
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id: delivery.id, endpointId: endpoint.id, state: 'dead', lastOutcome: 'destination_deleted', nextAttemptAt: null, attempts: 1 });
    expect(ended.body.attemptLog).toHaveLength(1);
    expect(receiver.received.length).toBe(requestsBefore);
    // Still listed among the tenant's deliveries until it expires.
    expect((await tenant.call(admin, 'GET', '/v1/webhooks/deliveries?state=dead')).body.items.map((d: { id: string }) => d.id)).toContain(delivery.id);
    // And a retry by hand has nowhere to go: one attempt, recorded as such.
    expect((await tenant.call(admin, 'POST', `/v1/webhooks/deliveries/${delivery.id}/retry`)).status).toBe(202);
    const retried = await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${delivery.id}`), (r) => r.body.state === 'dead' && r.body.attempts === 2);
    expect(retried.body.attemptLog.at(-1)).toMatchObject({ trigger: 'manual', outcome: 'destination_deleted', statusCode: null });
    expect(receiver.received.length).toBe(requestsBefore);
  }, 240_000);

  it('frees the URL and the active slot; a disabled destination gives back nothing twice', async () => {
    const url = `${receiver.url}/reused`;
    const first = (await create(url)).body.endpoint;
    expect((await create(url)).body.code).toBe('duplicate_destination');
    expect((await remove(first.id)).status).toBe(204);
    const again = await create(url);
    expect(again.status, again.text).toBe(201);

    // The limit is 3: `again` and two more are active; a disabled one deleted frees no slot.
    const second = (await create(`${receiver.url}/second`)).body.endpoint;
    expect((await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${second.id}`, { body: { version: 1, active: false } })).status).toBe(200);
    expect((await remove(second.id)).status).toBe(204);
    expect((await create(`${receiver.url}/third`)).status).toBe(201);
    expect((await create(`${receiver.url}/fourth`)).status).toBe(201);
    const over = await create(`${receiver.url}/fifth`);
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('destination_limit_reached');
  });

  it('never gives a slot back twice: a delete read before a disable is refused and read again', async () => {
    const endpoint = (await create(`${receiver.url}/raced`)).body.endpoint;
    // The delete's writes are made from the destination as read while active…
    const writes = await runAs('webhooks', () => deleteEndpoint(tenant.id, endpoint.id));
    // …then the destination is disabled (which gives its slot back) before they commit.
    expect((await tenant.call(admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, active: false } })).status).toBe(200);
    await expect(runAs('webhooks', () => commit(writes))).rejects.toBeInstanceOf(ReadOutdatedError);
    // Run again (as the request path does), it deletes the disabled destination alone: the count is 0, so 3 fit.
    expect((await remove(endpoint.id)).status).toBe(204);
    for (const path of ['a', 'b', 'c']) expect((await create(`${receiver.url}/${path}`)).status).toBe(201);
    expect((await create(`${receiver.url}/d`)).body.code).toBe('destination_limit_reached');
  });

  it('writes one audit entry; a replay answers the same and writes none; a second delete is 404', async () => {
    const endpoint = (await create(`${receiver.url}/audited`)).body.endpoint;
    const key = randomUUID();
    expect((await remove(endpoint.id, admin, key)).status).toBe(204);
    expect((await remove(endpoint.id, admin, key)).status).toBe(204);
    const entries = (await tenant.call(admin, 'GET', `/v1/audit?resourceId=${endpoint.id}&action=deleteWebhookEndpoint`)).body.items;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'deleteWebhookEndpoint', resourceId: endpoint.id, actorId: admin.id, outcome: 'succeeded' });
    const twice = await remove(endpoint.id);
    expect(twice.status).toBe(404);
  });

  it('is for admins with two-step verification, within their own company', async () => {
    const endpoint = (await create(`${receiver.url}/guarded`)).body.endpoint;
    const operator = await tenant.member('operator');
    expect((await remove(endpoint.id, operator)).body.code).toBe('role_forbidden');
    const noMfa = await tenant.member('admin');
    expect((await remove(endpoint.id, noMfa)).status).toBe(403);
    const other = await TestTenant.create(stack());
    const stranger = await other.member('admin', { mfa: true });
    expect((await other.call(stranger, 'DELETE', `/v1/webhooks/endpoints/${endpoint.id}`, { idempotencyKey: randomUUID() })).status).toBe(404);
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).status).toBe(200);
  });
});
