import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant } from '../../support/api.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';

// Short delays; the 2 s ones exceed the queue limit set here, so they go through the Scheduler.
const delays = [1, 1, 2, 1, 2, 1, 1];
const world = useWebhookWorld({ env: { WEBHOOK_RETRY_DELAYS: delays.join(','), WEBHOOK_MAX_QUEUE_DELAY_SECONDS: '1' } });
const { stack, receiver } = world;
let scheduled = 0;

beforeAll(async () => {
  const scheduler = stack().webhooks.scheduler;
  const scheduleAt = scheduler.scheduleAt.bind(scheduler);
  scheduler.scheduleAt = (...args) => {
    scheduled++;
    return scheduleAt(...args);
  };
});

const newEndpoint = async (path: string) =>
  (await world.tenant.call(world.admin, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/${path}`, eventTypes: ['distribution.order.created'] } })).body.endpoint;
const getDelivery = (id: string) => world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${id}`);

describe('retries', () => {
  let deadDeliveryId = '';

  it('makes eight attempts on the schedule, then the delivery is dead', async () => {
    receiver.reply = () => ({ status: 500 });
    const endpoint = await newEndpoint('failing');
    const delivery = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).body;
    const requests = (await receiver.waitFor(8, 120_000)).filter((r) => r.path.endsWith('/failing'));
    const dead = await eventually(() => getDelivery(delivery.id), (r) => r.body.state === 'dead');
    expect(dead.body).toMatchObject({ attempts: 8, maxAttempts: 8, lastStatus: 500, lastOutcome: 'http_status', nextAttemptAt: null, succeededAt: null });
    expect(dead.body.deadAt).not.toBeNull();
    expect(dead.body.attemptLog.map((a: { attemptNo: number }) => a.attemptNo)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(dead.body.attemptLog.every((a: { trigger: string; outcome: string; statusCode: number }) => a.trigger === 'auto' && a.outcome === 'http_status' && a.statusCode === 500)).toBe(true);
    // Every gap is at least its planned delay (less the 1 s a claim accepts early).
    const gaps = requests.slice(1, 8).map((r, i) => r.at - requests[i].at);
    gaps.forEach((gap, i) => expect(gap, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(delays[i] * 1000 - 1000));
    expect(new Set(requests.slice(0, 8).map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(scheduled).toBe(2);
    // A test notification never counts toward disabling (failure-count.test.ts has the 20th case).
    expect((await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body.consecutiveFailures).toBe(0);
    deadDeliveryId = delivery.id;
  }, 240_000);

  it('retries a dead delivery by hand once, in manual mode, with the same webhook id', async () => {
    const before = receiver.received.length;
    receiver.reply = (r) => ({ status: r.path.endsWith('/failing') ? 200 : 500 });
    const retried = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${deadDeliveryId}/retry`);
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body).toMatchObject({ state: 'pending', mode: 'manual', manualRetries: 1 });
    const again = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${deadDeliveryId}/retry`);
    expect([409, 202]).toContain(again.status);
    const done = await eventually(() => getDelivery(deadDeliveryId), (r) => r.body.state === 'succeeded');
    expect(done.body.attemptLog.at(-1)).toMatchObject({ trigger: 'manual', outcome: 'success', statusCode: 200 });
    expect(done.body.manualRetries).toBeGreaterThanOrEqual(1);
    expect(receiver.received[before].headers['webhook-id']).toBe(done.body.eventId);
    const endpoint = (await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${done.body.endpointId}`)).body;
    expect(endpoint.consecutiveFailures).toBe(0);
  }, 240_000);

  it('refuses a manual retry while the delivery is pending', async () => {
    const endpoint = await newEndpoint('pending');
    const delivery = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).body;
    const refused = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${delivery.id}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_state');
  });

  it('moves the next attempt later on 503 with Retry-After, at most to twice the planned delay', async () => {
    let calls = 0;
    receiver.reply = (r) => (!r.path.endsWith('/busy') ? { status: 500 } : ++calls === 1 ? { status: 503, headers: { 'retry-after': '60' } } : { status: 200 });
    const endpoint = await newEndpoint('busy');
    const delivery = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`)).body;
    const waiting = await eventually(() => getDelivery(delivery.id), (r) => r.body.attempts === 1);
    expect(waiting.body).toMatchObject({ state: 'pending', lastStatus: 503, lastOutcome: 'http_status' });
    const gap = new Date(waiting.body.nextAttemptAt).getTime() - new Date(waiting.body.attemptLog[0].startedAt).getTime();
    expect(gap).toBeGreaterThanOrEqual(2 * delays[0] * 1000 - 50);
    expect(gap).toBeLessThan(2 * delays[0] * 1000 + 1500);
    await eventually(() => getDelivery(delivery.id), (r) => r.body.state === 'succeeded');
  }, 240_000);
});

describe('delivery log', () => {
  it('lists newest first with state, endpoint, before and limit', async () => {
    const all = await world.tenant.call(world.admin, 'GET', '/v1/webhooks/deliveries');
    expect(all.status).toBe(200);
    const ids = all.body.items.map((d: { id: string }) => d.id);
    expect(ids).toEqual([...ids].sort().reverse());
    const first = await world.tenant.call(world.admin, 'GET', '/v1/webhooks/deliveries?limit=1');
    expect(first.body.items).toHaveLength(1);
    const second = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries?limit=1&before=${first.body.nextCursor}`);
    expect(second.body.items[0].id).toBe(ids[1]);
    const succeeded = await world.tenant.call(world.admin, 'GET', '/v1/webhooks/deliveries?state=succeeded');
    expect(succeeded.body.items.length).toBeGreaterThan(0);
    expect(succeeded.body.items.every((d: { state: string }) => d.state === 'succeeded')).toBe(true);
    const endpointId = all.body.items[0].endpointId;
    const byEndpoint = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries?endpointId=${endpointId}`);
    expect(byEndpoint.body.items.every((d: { endpointId: string }) => d.endpointId === endpointId)).toBe(true);
    const nested = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?state=succeeded&limit=100`);
    expect(nested.body.items.every((d: { endpointId: string; state: string }) => d.endpointId === endpointId && d.state === 'succeeded')).toBe(true);
    expect((await world.tenant.call(world.admin, 'GET', '/v1/webhooks/deliveries?state=lost')).status).toBe(400);

    const other = await TestTenant.create(stack());
    const stranger = await other.member('admin', { mfa: true });
    expect((await other.call(stranger, 'GET', `/v1/webhooks/deliveries/${ids[0]}`)).status).toBe(404);
    expect((await other.call(stranger, 'POST', `/v1/webhooks/deliveries/${ids[0]}/retry`)).status).toBe(404);
    expect((await other.call(stranger, 'GET', `/v1/webhooks/deliveries?endpointId=${endpointId}`)).status).toBe(404);
    const viewer = await world.tenant.member('viewer');
    expect((await world.tenant.call(viewer, 'GET', '/v1/webhooks/deliveries')).status).toBe(200);
    expect((await world.tenant.call(viewer, 'POST', `/v1/webhooks/deliveries/${ids[0]}/retry`)).body.code).toBe('role_forbidden');
  });

  it('answers 410 past the 30 days of retention and 404 for a delivery never made', async () => {
    const expiredId = uuidv7({ msecs: Date.now() - 31 * 86_400_000 });
    expect((await getDelivery(expiredId)).status).toBe(410);
    const lingering = uuidv7({ msecs: Date.now() - 31 * 86_400_000 });
    await runAs(OPERATOR, () =>
      table().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.delivery(world.tenant.id, lingering), entity: 'delivery', deliveryId: lingering, tenantId: world.tenant.id, expiresAt: Math.floor(Date.now() / 1000) - 60 },
      }),
      ),
    );
    const gone = await getDelivery(lingering);
    expect(gone.status).toBe(410);
    expect(gone.body.code).toBe('expired');
    expect((await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${lingering}/retry`)).status).toBe(410);
    expect((await world.tenant.call(world.admin, 'GET', '/v1/webhooks/deliveries')).body.items.map((d: { id: string }) => d.id)).not.toContain(lingering);
    expect((await getDelivery(uuidv7())).status).toBe(404);
  });
});
