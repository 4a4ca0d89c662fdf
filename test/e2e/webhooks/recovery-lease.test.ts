import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookWorker } from '../../../functions/jobs.ts';
import { newDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { runRecoveryPage } from '../../../functions/webhooks/worker/recovery-page.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { orderCreatedEvent } from './order-event.ts';
import { isRecoveryPage, type QueueMessage, type RecoveryPageMessage } from '../../../shared/ports/queue.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { eventually, Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';

// A lease of 2 s, no sweep grace, and no sweeps but the test's own.
const stack = useLocalStack({
  env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_RECOVERY_LEASE_SECONDS: '2', WEBHOOK_SWEEP_GRACE_SECONDS: '0', WEBHOOK_SWEEP_SECONDS: '3600' },
});
const receiver = new Receiver();
let tenant: TestTenant;
let admin: TestMember;
/** Every recovery page message handed to the queue, dropped or not. */
const pages: RecoveryPageMessage[] = [];
/** Page messages the test keeps from the queue (a lost or held message); the rest go through. */
let drop: (message: RecoveryPageMessage) => boolean = () => false;
const dropped: RecoveryPageMessage[] = [];

beforeAll(async () => {
  await receiver.start();
  receiver.reply = () => ({ status: 204 });
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
  const queue = stack().webhooks.queue;
  const send = queue.send.bind(queue);
  queue.send = async (message: QueueMessage, delaySeconds = 0) => {
    if (isRecoveryPage(message)) {
      pages.push(message);
      if (drop(message)) {
        dropped.push(message);
        return;
      }
    }
    return send(message, delaySeconds);
  };
});
afterAll(() => receiver.stop());

const HOUR = 3600_000;
const sweep = () => stack().webhooks.sweep();
const create = async (owner: TestTenant, member: TestMember, path: string) =>
  (await owner.call(member, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/${path}`, eventTypes: ['distribution.order.created'] } })).body.endpoint as { id: string };
const recover = (endpointId: string, owner = tenant, member = admin) =>
  owner.call(member, 'POST', `/v1/webhooks/endpoints/${endpointId}/recover`, { body: { since: new Date(Date.now() - 2 * HOUR).toISOString() } });
const readRecovery = (endpointId: string, id: string, owner = tenant, member = admin) => owner.call(member, 'GET', `/v1/webhooks/endpoints/${endpointId}/recoveries/${id}`);
const lockOf = async (endpointId: string) =>
  (await runAs(OPERATOR, () => table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookRecoveryLock(tenant.id, endpointId), ConsistentRead: true })))).Item;
const ofRecovery = (id: string) => (m: RecoveryPageMessage) => m.recoveryPage.recoveryId === id;

/** `count` deliveries dead after their eighth attempt, made in the last hour. */
const seedDead = async (endpointId: string, count: number) => {
  const now = Date.now();
  const seeded = Array.from({ length: count }, (_, i) => {
    const at = new Date(now - HOUR + i * 1000);
    const { event } = orderCreatedEvent(tenant.id, { at });
    const { id, destination: _copy, ...record } = newDelivery(event, endpointId, at);
    const item = { ...keys.delivery(tenant.id, id), ...keys.deliveryByEndpoint(endpointId, id), entity: 'delivery', deliveryId: id, ...record };
    return { id, eventId: event.id, item: { ...item, state: 'dead', attempts: 8, manualRetries: 0, nextAttemptAt: null, lastAttemptAt: at.toISOString(), lastStatus: 503, lastOutcome: 'http_status', deadAt: at.toISOString() } };
  });
  for (let i = 0; i < seeded.length; i += 25) {
    await runAs(OPERATOR, () => table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: seeded.slice(i, i + 25).map(({ item }) => ({ PutRequest: { Item: item } })) } })));
  }
  return seeded;
};

/** Waits until the lock's lease (as it is now) has run out. */
const leaseRunsOut = async (endpointId: string) => {
  const lease = (await lockOf(endpointId))!.leaseUntil as string;
  await eventually(async () => Date.now(), (now) => now > new Date(lease).getTime() + 50, 120_000);
};

describe('a recovery whose page is lost (issue 29)', () => {
  it('is resumed by the sweeper once its lease runs out; two sweeps, or a late page and a sweep, make no attempt twice; then a new recovery starts', async () => {
    const endpoint = await create(tenant, admin, 'lost');
    const dead = await seedDead(endpoint.id, 60); // two pages: 50, then 10
    const expected = new Set(dead.map((d) => d.eventId));
    // The first page's message is lost, and the second one is held back for the race below.
    drop = (m) => m.recoveryPage.endpointId === endpoint.id && !m.recoveryPage.lease && m.recoveryPage.step <= 1;

    const started = await recover(endpoint.id);
    expect(started.status, started.text).toBe(202);
    await eventually(async () => dropped.filter(ofRecovery(started.body.id)).length, (n) => n === 1);
    expect((await recover(endpoint.id)).body.code).toBe('recovery_running');

    // Two sweeps at once once the lease ran out: the lock is taken over by one resume only.
    await leaseRunsOut(endpoint.id);
    await Promise.all([sweep(), sweep()]);
    const resumes = pages.filter((m) => ofRecovery(started.body.id)(m) && m.recoveryPage.lease);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    // The resumed first page ran: 50 requeued, and its next page's message (held here) sent.
    const held = await eventually(async () => dropped.filter((m) => ofRecovery(started.body.id)(m) && m.recoveryPage.step === 1), (m) => m.length === 1);
    expect((await readRecovery(endpoint.id, started.body.id)).body).toMatchObject({ state: 'running', counts: { matched: 50, requeued: 50 } });
    expect((await lockOf(endpoint.id))!.resumes).toBe(0);

    // That message turns up only after the lease ran out again, while a sweep resumes the recovery.
    await leaseRunsOut(endpoint.id);
    await Promise.all([runAs(webhookWorker.name, () => runRecoveryPage(held[0])), sweep()]);

    const finished = await eventually(() => readRecovery(endpoint.id, started.body.id), (r) => r.body.state === 'finished', 120_000);
    expect(finished.body.counts).toEqual({ matched: 60, requeued: 60 });
    await eventually(async () => receiver.received.filter((r) => expected.has(r.headers['webhook-id'] as string)).length, (n) => n >= expected.size, 120_000);
    await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries?state=delivering&limit=100`), (r) => r.body.items.length === 0);
    // Once each: one request per delivery, one attempt more than its eight, one manual retry.
    const got = receiver.received.filter((r) => expected.has(r.headers['webhook-id'] as string)).map((r) => r.headers['webhook-id']);
    expect(got.length).toBe(expected.size);
    for (const d of [dead[0], dead[49], dead[50], dead[59]]) {
      expect((await tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${d.id}`)).body).toMatchObject({ state: 'succeeded', attempts: 9, manualRetries: 1 });
    }

    // The lock is gone: nothing left to sweep, and a new recovery starts.
    expect(await lockOf(endpoint.id)).toBeUndefined();
    drop = () => false;
    const again = await recover(endpoint.id);
    expect(again.status, again.text).toBe(202);
    const done = await eventually(() => readRecovery(endpoint.id, again.body.id), (r) => r.body.state === 'finished', 120_000);
    expect(done.body.counts).toEqual({ matched: 0, requeued: 0 });
    expect(receiver.received.filter((r) => expected.has(r.headers['webhook-id'] as string)).length).toBe(expected.size);
  }, 120_000);

  it('is finished where it is when its page keeps failing (dead-lettered), and frees its destination', async () => {
    const endpoint = await create(tenant, admin, 'poison');
    const dead = await seedDead(endpoint.id, 3);
    // A corrupt item (a count stored as text) makes every run of the page fail, as a page that
    // is dead-lettered again and again.
    const corrupt = keys.delivery(tenant.id, dead[1].id);
    const setRetries = (value: unknown) =>
      runAs(OPERATOR, () => table().send(new UpdateCommand({ TableName: tableName(), Key: corrupt, UpdateExpression: 'SET manualRetries = :v', ExpressionAttributeValues: { ':v': value } })));
    await setRetries('0');
    drop = () => false;

    const started = await recover(endpoint.id);
    expect(started.status, started.text).toBe(202);
    // Each sweep after a lease resumes it once; the fourth resume in a row without progress ends it.
    const finished = await eventually(
      async () => {
        await leaseRunsOut(endpoint.id);
        await sweep();
        await new Promise((r) => setTimeout(r, 200));
        return readRecovery(endpoint.id, started.body.id);
      },
      (r) => r.body.state === 'finished',
      60_000,
    );
    expect(finished.body).toMatchObject({ counts: { matched: 0, requeued: 0 } });
    expect(finished.body.finishedAt).not.toBeNull();
    expect(await lockOf(endpoint.id)).toBeUndefined();

    // Repaired, it recovers as usual.
    await setRetries(0);
    const again = await recover(endpoint.id);
    expect(again.status, again.text).toBe(202);
    expect((await eventually(() => readRecovery(endpoint.id, again.body.id), (r) => r.body.state === 'finished', 120_000)).body.counts).toEqual({ matched: 3, requeued: 3 });
  }, 120_000);
});

describe('running recoveries per company (issue 29)', () => {
  it('allows five at once: a sixth is 409 recoveries_limit while another company still starts one, and a finished one frees its slot', async () => {
    const busy = await TestTenant.create(stack());
    const busyAdmin = await busy.member('admin', { mfa: true });
    const endpoints = await Promise.all(Array.from({ length: 6 }, (_, i) => create(busy, busyAdmin, `busy-${i}`)));
    // Their first pages are held, so all of them stay running.
    drop = (m) => endpoints.some((e) => e.id === m.recoveryPage.endpointId) && !m.recoveryPage.lease;

    const answers = await Promise.all(endpoints.map((e) => recover(e.id, busy, busyAdmin)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 202, 202, 202, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(refused.body.code).toBe('recoveries_limit');
    const waiting = endpoints[answers.indexOf(refused)];

    // Another company is not held up by this one.
    const elsewhere = await create(tenant, admin, 'other-company');
    expect((await recover(elsewhere.id)).status).toBe(202);

    // One of the five finishes (its held page goes through): the sixth starts.
    const first = answers.find((a) => a.status === 202)!;
    const page = await eventually(async () => dropped.find(ofRecovery(first.body.id)), (m) => m !== undefined);
    drop = () => false;
    await stack().webhooks.queue.send(page!);
    await eventually(() => readRecovery(first.body.endpointId, first.body.id, busy, busyAdmin), (r) => r.body.state === 'finished', 120_000);
    const sixth = await recover(waiting.id, busy, busyAdmin);
    expect(sixth.status, sixth.text).toBe(202);
  }, 240_000);
});
