import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { webhookWorker } from '../../../functions/jobs.ts';
import { newDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { RECOVERY_ATTEMPTS_PER_SECOND, runRecoveryPage } from '../../../functions/webhooks/worker/recovery-page.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { orderCreatedEvent } from './order-event.ts';
import { newId } from '../../../shared/ids.ts';
import { isDelivery, isRecoveryPage, type QueueMessage } from '../../../shared/ports/queue.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld({ env: { WEBHOOK_MAX_MANUAL_RETRIES: '20' } });
const { stack, receiver } = world;
/** Every message handed to the attempts queue, in order, with its delay. */
const sent: { message: QueueMessage; delaySeconds: number }[] = [];

beforeAll(async () => {
  const queue = stack().webhooks.queue;
  const send = queue.send.bind(queue);
  queue.send = (message, delaySeconds = 0) => {
    sent.push({ message, delaySeconds });
    return send(message, delaySeconds);
  };
});

const HOUR = 3600_000;
const create = async (path: string) =>
  (await world.tenant.call(world.admin, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/${path}`, eventTypes: ['distribution.order.created'] } })).body.endpoint as { id: string };

/** A delivery in the table as the worker leaves it after its eighth failure (or a success), made at `at`. */
const settledDelivery = (endpointId: string, at: Date, state: 'dead' | 'succeeded', manualRetries = 0) => {
  const { event } = orderCreatedEvent(world.tenant.id, { at });
  const { id, destination: _copy, ...record } = newDelivery(event, endpointId, at);
  const settledAt = new Date(at.getTime() + 10 * HOUR).toISOString();
  return {
    id,
    eventId: event.id,
    item: {
      ...keys.delivery(world.tenant.id, id),
      ...keys.deliveryByEndpoint(endpointId, id),
      entity: 'delivery',
      deliveryId: id,
      ...record,
      state,
      attempts: 8,
      manualRetries,
      nextAttemptAt: null,
      lastAttemptAt: settledAt,
      lastStatus: state === 'dead' ? 503 : 200,
      lastOutcome: state === 'dead' ? 'http_status' : 'success',
      deadAt: state === 'dead' ? settledAt : null,
      succeededAt: state === 'succeeded' ? settledAt : null,
    },
  };
};

const putAll = async (items: Record<string, unknown>[]) => {
  for (let i = 0; i < items.length; i += 25) {
    await runAs(OPERATOR, () => table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } })));
  }
};
const recover = (endpointId: string, body: Record<string, unknown>, member = world.admin) => world.tenant.call(member, 'POST', `/v1/webhooks/endpoints/${endpointId}/recover`, { body });
const readRecovery = (endpointId: string, id: string) => world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpointId}/recoveries/${id}`);
const arrivals = (eventIds: Set<string>) => receiver.received.filter((r) => eventIds.has(r.headers['webhook-id'] as string));

describe('recovering dead deliveries (decisions 5)', () => {
  it('after an outage of two days, a recovery since yesterday requeues exactly the dead deliveries made since then, oldest first, each arriving once', async () => {
    receiver.reply = () => ({ status: 204 }); // the receiver is repaired
    const endpoint = await create('repaired');
    const other = await create('other');
    const now = Date.now();
    const since = new Date(now - 24 * HOUR);
    // 300 dead deliveries over two days, one every 9.5 minutes.
    const dead = Array.from({ length: 300 }, (_, i) => settledDelivery(endpoint.id, new Date(now - 47.5 * HOUR + i * 9.5 * 60_000), 'dead'));
    const atCap = Array.from({ length: 3 }, (_, i) => settledDelivery(endpoint.id, new Date(now - 2 * HOUR + i * 1000), 'dead', 20));
    const succeeded = Array.from({ length: 4 }, (_, i) => settledDelivery(endpoint.id, new Date(now - 3 * HOUR + i * 1000), 'succeeded'));
    const elsewhere = Array.from({ length: 4 }, (_, i) => settledDelivery(other.id, new Date(now - 3 * HOUR + i * 1000), 'dead'));
    await putAll([...dead, ...atCap, ...succeeded, ...elsewhere].map((d) => d.item));
    const inWindow = dead.filter((d) => new Date(d.item.createdAt) >= since);
    expect(inWindow.length).toBeGreaterThan(140);
    const expectedIds = new Set(inWindow.map((d) => d.eventId));

    const started = await recover(endpoint.id, { since: since.toISOString() });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ endpointId: endpoint.id, since: since.toISOString(), state: 'running', counts: { matched: 0, requeued: 0 }, finishedAt: null });
    // `until` defaults to the time of the request.
    expect(started.body.until).toBe(started.body.createdAt);
    expect(started.headers.get('location')).toBe(`/v1/webhooks/endpoints/${endpoint.id}/recoveries/${started.body.id}`);
    // One at a time per destination.
    const second = await recover(endpoint.id, { since: since.toISOString() });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('recovery_running');

    const finished = await eventually(() => readRecovery(endpoint.id, started.body.id), (r) => r.body.state === 'finished');
    expect(finished.body.counts).toEqual({ matched: inWindow.length + atCap.length, requeued: inWindow.length });
    expect(finished.body.finishedAt).not.toBeNull();

    await eventually(async () => arrivals(expectedIds).length, (n) => n >= expectedIds.size);
    await eventually(() => world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries?state=pending&limit=100`), (r) => r.body.items.length === 0);
    await eventually(() => world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries?state=delivering&limit=100`), (r) => r.body.items.length === 0);
    // Each once; nothing older than `since`, nothing at the cap, nothing of another destination.
    const got = receiver.received.map((r) => r.headers['webhook-id'] as string);
    expect(got.length).toBe(expectedIds.size);
    expect(new Set(got)).toEqual(expectedIds);
    const sample = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${inWindow[0].id}`);
    expect(sample.body).toMatchObject({ state: 'succeeded', manualRetries: 1, mode: 'manual', attempts: 9 });
    expect(sample.body.attemptLog.at(-1)).toMatchObject({ trigger: 'manual', outcome: 'success' });
    const capped = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${atCap[0].id}`);
    expect(capped.body).toMatchObject({ state: 'dead', manualRetries: 20 });
    expect((await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${dead[0].id}`)).body).toMatchObject({ state: 'dead', manualRetries: 0 });

    // At most 10 requeued attempts a second: each page hands its deliveries to the queue in
    // one-second buckets of at most 10, and the next page waits until its last bucket passed.
    const ours = new Set(inWindow.map((d) => d.id));
    let bucket: number[] = [];
    let pages = 0;
    for (const { message, delaySeconds } of sent) {
      if (isRecoveryPage(message) && message.recoveryPage.recoveryId === started.body.id) {
        const perSecond = new Map<number, number>();
        for (const delay of bucket) perSecond.set(delay, (perSecond.get(delay) ?? 0) + 1);
        expect(Math.max(0, ...perSecond.values())).toBeLessThanOrEqual(RECOVERY_ATTEMPTS_PER_SECOND);
        if (message.recoveryPage.step > 0) expect(delaySeconds).toBeGreaterThan(Math.max(-1, ...bucket));
        bucket = [];
        pages++;
      } else if (isDelivery(message) && ours.has(message.deliveryId)) {
        bucket.push(delaySeconds);
      }
    }
    expect(Math.max(0, ...new Map(bucket.map((d) => [d, bucket.filter((x) => x === d).length])).values())).toBeLessThanOrEqual(RECOVERY_ATTEMPTS_PER_SECOND);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(inWindow.length / 50));
    // Each requeued delivery was handed to the queue once (the stream left it to the page), oldest first.
    const handed = sent.flatMap(({ message }) => (isDelivery(message) && ours.has(message.deliveryId) ? [message.deliveryId] : []));
    expect(handed).toEqual(inWindow.map((d) => d.id));

    // The lock is free again; the cap still holds: the capped ones match and are not requeued.
    const again = await recover(endpoint.id, { since: since.toISOString() });
    expect(again.status).toBe(202);
    const done = await eventually(() => readRecovery(endpoint.id, again.body.id), (r) => r.body.state === 'finished', 120_000);
    expect(done.body.counts).toEqual({ matched: atCap.length, requeued: 0 });

    // A page message handed over again after its page committed (the worker died before sending,
    // or SQS repeats it) sends the page again: the claims keep every delivery to one arrival.
    const outcome = await runAs(webhookWorker.name, () => runRecoveryPage({ tenantId: world.tenant.id, recoveryPage: { endpointId: endpoint.id, recoveryId: started.body.id, step: 0 } }));
    expect(outcome).toBe('redelivery');
    // The page messages were steps 0 to pages - 1: the last one names the last committed page.
    const lastStep = pages - 1;
    expect(await runAs(webhookWorker.name, () => runRecoveryPage({ tenantId: world.tenant.id, recoveryPage: { endpointId: endpoint.id, recoveryId: started.body.id, step: lastStep } }))).toBe('resent');
    await eventually(() => world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries?state=delivering&limit=100`), (r) => r.body.items.length === 0);
    expect(receiver.received.length).toBe(expectedIds.size);
  }, 180_000);

  it('ends where it is when its destination is deleted, and leaves no delivery pending', async () => {
    const endpoint = await create('deleted-during');
    const now = Date.now();
    const dead = Array.from({ length: 120 }, (_, i) => settledDelivery(endpoint.id, new Date(now - HOUR + i * 1000), 'dead'));
    await putAll(dead.map((d) => d.item));
    const started = await recover(endpoint.id, { since: new Date(now - 2 * HOUR).toISOString() });
    expect(started.status).toBe(202);
    expect((await world.tenant.call(world.admin, 'DELETE', `/v1/webhooks/endpoints/${endpoint.id}`)).status).toBe(204);
    const finished = await eventually(() => readRecovery(endpoint.id, started.body.id), (r) => r.body.state === 'finished', 120_000);
    expect(finished.body.counts.requeued).toBeLessThan(dead.length);
    expect(finished.body.counts.matched).toBe(finished.body.counts.requeued);
    // Ten reads at a time: 120 at once opened more table connections than DynamoDB Local accepts
    // within the client's 1 s connect timeout while the rest of the run loads it (503s).
    const states = async () => {
      const bodies = [];
      for (let i = 0; i < dead.length; i += 10) {
        bodies.push(...(await Promise.all(dead.slice(i, i + 10).map(async (d) => (await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${d.id}`)).body))));
      }
      return bodies;
    };
    const settled = await eventually(states, (all) => all.every((d) => d.state === 'dead'), 120_000);
    // What the recovery had requeued ended deleted, unless its attempt was made before the delete.
    const requeued = settled.filter((d) => d.manualRetries === 1);
    expect(requeued).toHaveLength(finished.body.counts.requeued);
    for (const d of requeued) expect(['destination_deleted', 'success']).toContain(d.lastOutcome);
    expect(receiver.received.filter((r) => r.path.endsWith('/deleted-during')).length).toBe(requeued.filter((d) => d.lastOutcome === 'success').length);
  }, 240_000);

  it('checks the window, the destination and the caller', async () => {
    const endpoint = await create('checked');
    const day = 24 * HOUR;
    const tooOld = await recover(endpoint.id, { since: new Date(Date.now() - 31 * day).toISOString() });
    expect(tooOld.status).toBe(422);
    expect(tooOld.body.code).toBe('invalid_recovery_window');
    const reversed = await recover(endpoint.id, { since: new Date(Date.now() - HOUR).toISOString(), until: new Date(Date.now() - 2 * HOUR).toISOString() });
    expect(reversed.status).toBe(422);
    expect(reversed.body.errors[0].path).toBe('body.until');
    expect((await recover(endpoint.id, { since: 'yesterday' })).status).toBe(400);
    expect((await recover(endpoint.id, {})).status).toBe(400);
    const operator = await world.tenant.member('operator');
    expect((await recover(endpoint.id, { since: new Date(Date.now() - HOUR).toISOString() }, operator)).body.code).toBe('role_forbidden');
    expect((await recover(newId(), { since: new Date(Date.now() - HOUR).toISOString() })).status).toBe(404);
    expect((await readRecovery(endpoint.id, newId())).status).toBe(404);

    expect((await world.tenant.call(world.admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, active: false } })).status).toBe(200);
    const disabled = await recover(endpoint.id, { since: new Date(Date.now() - HOUR).toISOString() });
    expect(disabled.status).toBe(409);
    expect(disabled.body.code).toBe('destination_disabled');

    // A future `until` is read as now; the recovery is readable by viewers.
    const live = await create('live');
    const ok = await recover(live.id, { since: new Date(Date.now() - HOUR).toISOString(), until: new Date(Date.now() + day).toISOString() });
    expect(ok.status, ok.text).toBe(202);
    expect(new Date(ok.body.until).getTime()).toBeLessThanOrEqual(Date.now());
    const viewer = await world.tenant.member('viewer');
    expect((await world.tenant.call(viewer, 'GET', `/v1/webhooks/endpoints/${live.id}/recoveries/${ok.body.id}`)).status).toBe(200);
  });
});
