import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newDelivery, putNewDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { toEndpointRecord } from '../../../functions/webhooks/endpoint-record.ts';
import { webhookWorker } from '../../../functions/jobs.ts';
import { currentFunction, OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { orderCreatedEvent } from './order-event.ts';
import { newId } from '../../../shared/ids.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

// Retries 1 s apart, all eight within the age up to which a destination copy is used (10 s by
// default; 60 s here, so that a slow machine cannot push the eighth attempt past it).
const COPY_SECONDS = 60;
const world = useWebhookWorld({ retryDelay: '1', env: { WEBHOOK_DESTINATION_SNAPSHOT_SECONDS: String(COPY_SECONDS) } });
const { stack, receiver, emitOrderCreated } = world;
receiver.reply = (request) => ({ status: request.path.includes('/failing') ? 500 : 204 });

interface Call {
  command: string;
  target: string;
}

/** The claim: the conditional write that takes the attempt's lease. */
const claimOf = new WeakSet<Call>();

/** Every table call the worker makes, in order, with the item it names first (delivery or destination). */
let calls: Call[] = [];
const MIDDLEWARE = 'count-worker-calls';
beforeEach(() => {
  calls = [];
  table().middlewareStack.add(
    (next, context) => async (args) => {
      if (currentFunction() === webhookWorker.name) {
        const input = args.input as { Key?: { sk?: string }; UpdateExpression?: string; TransactItems?: Array<Record<string, { Key?: { sk?: string } }>> };
        const sk = input.Key?.sk ?? Object.values(input.TransactItems?.[0] ?? {})[0]?.Key?.sk ?? '';
        const call = { command: context.commandName ?? '?', target: sk };
        if (input.UpdateExpression?.includes('leaseUntil = :leaseUntil')) claimOf.add(call);
        calls.push(call);
      }
      return next(args);
    },
    { step: 'initialize', name: MIDDLEWARE },
  );
});
afterEach(() => {
  table().middlewareStack.remove(MIDDLEWARE);
});

/**
 * The calls of each attempt of one delivery (to a destination with no other delivery in flight;
 * other deliveries' attempts run beside it): every attempt begins with its claim.
 */
const perAttempt = (deliveryId: string, endpointId: string): Call[][] => {
  const attempts: Call[][] = [];
  for (const call of calls.filter((c) => c.target === `DLV#${deliveryId}` || c.target === `WHEP#${endpointId}`)) {
    if (claimOf.has(call)) attempts.push([call]);
    else attempts.at(-1)?.push(call);
  }
  return attempts;
};

const createEndpoint = async (path: string) => (await world.createEndpoint(['distribution.order.created'], path)).endpoint;
const getDelivery = (id: string) => world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${id}`);
const readEndpoint = async (id: string) => (await runAs(OPERATOR, () => table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, id), ConsistentRead: true })))).Item!;
const readDeliveryItem = async (id: string) => (await runAs(OPERATOR, () => table().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(world.tenant.id, id), ConsistentRead: true })))).Item!;

const deliveryOf = async (eventId: string, endpointId: string) =>
  (
    await eventually(
      () => world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=100`),
      (r) => r.body.items.some((d: { eventId: string }) => d.eventId === eventId),
    )
  ).body.items.find((d: { eventId: string }) => d.eventId === eventId);

describe('the table calls of one delivery attempt', () => {
  it('a first attempt that succeeds: the claim and the record, no read of the destination', async () => {
    const endpoint = await createEndpoint('healthy');
    const event = await emitOrderCreated();
    const delivery = await deliveryOf(event.id, endpoint.id);
    await eventually(() => getDelivery(delivery.id), (r) => r.body.state === 'succeeded');
    expect(perAttempt(delivery.id, endpoint.id)).toEqual([
      [
        { command: 'UpdateItemCommand', target: `DLV#${delivery.id}` },
        { command: 'UpdateItemCommand', target: `DLV#${delivery.id}` },
      ],
    ]);
    // The copy the fan-out made is on the delivery, with the destination's state and version.
    expect((await readDeliveryItem(delivery.id)).destination).toMatchObject({ url: endpoint.url, state: 'active', version: 1, consecutiveFailures: 0 });
  });

  it('eight failing attempts and the death that counts: at most two calls each; the count moves with the last record', async () => {
    const endpoint = await createEndpoint('failing');
    const event = await emitOrderCreated();
    const delivery = await deliveryOf(event.id, endpoint.id);
    await eventually(() => getDelivery(delivery.id), (r) => r.body.state === 'dead', 120_000);
    const attempts = perAttempt(delivery.id, endpoint.id);
    expect(attempts).toHaveLength(8);
    for (const attempt of attempts) expect(attempt.length).toBeLessThanOrEqual(2);
    // The death is recorded together with the destination's failure count, in one transaction.
    expect(attempts[7][1]).toEqual({ command: 'TransactWriteItemsCommand', target: `DLV#${delivery.id}` });
    expect((await readEndpoint(endpoint.id)).consecutiveFailures).toBe(1);
  }, 240_000);

  it('a success after failures resets the count in the same write as its record', async () => {
    const endpoint = await createEndpoint('recovering');
    // The destination has failures before the event, so the fan-out's copy shows them.
    await runAs(OPERATOR, () => table().send(new UpdateCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, endpoint.id), UpdateExpression: 'SET consecutiveFailures = :n', ExpressionAttributeValues: { ':n': 5 } })));
    const event = await emitOrderCreated();
    const delivery = await deliveryOf(event.id, endpoint.id);
    await eventually(() => getDelivery(delivery.id), (r) => r.body.state === 'succeeded');
    expect(perAttempt(delivery.id, endpoint.id)).toEqual([
      [
        { command: 'UpdateItemCommand', target: `DLV#${delivery.id}` },
        { command: 'TransactWriteItemsCommand', target: `DLV#${delivery.id}` },
      ],
    ]);
    expect((await readEndpoint(endpoint.id)).consecutiveFailures).toBe(0);
  });

  it('a test notification: two calls', async () => {
    const endpoint = await createEndpoint('probe');
    const test = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`);
    await eventually(() => getDelivery(test.body.id), (r) => r.body.state === 'succeeded');
    expect(perAttempt(test.body.id, endpoint.id).map((a) => a.length)).toEqual([2]);
  });
});

describe('the record with the count, retried', () => {
  it('a death whose record and count time out after reaching the table counts once', async () => {
    const endpoint = await createEndpoint('failing-timeout');
    const { event } = orderCreatedEvent(world.tenant.id, { reference: 'PED-8' });
    // Seven attempts made already: the next one is the eighth, and its failure kills the delivery.
    const record = newDelivery(event, { record: toEndpointRecord(await readEndpoint(endpoint.id)), readAt: new Date() }, new Date());
    const log = Array.from({ length: 7 }, (_, i) => ({ attemptNo: i + 1, trigger: 'auto', startedAt: new Date().toISOString(), durationMs: 3, outcome: 'http_status', statusCode: 500 }));
    await runAs(OPERATOR, () => table().send(new PutCommand({ TableName: tableName(), Item: { ...putNewDelivery(record).item.Put!.Item!, attempts: 7, attemptLog: log } })));
    const name = `timeout-${newId()}`;
    let timedOut = false;
    table().middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: Array<{ Update?: { Key?: { sk?: string } } }> }).TransactItems;
        const result = await next(args);
        if (!timedOut && items?.[0]?.Update?.Key?.sk === `DLV#${record.id}`) {
          timedOut = true; // written, but the answer never came back
          throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
        }
        return result;
      },
      { step: 'initialize', name },
    );
    try {
      await stack().webhooks.queue.send({ tenantId: world.tenant.id, deliveryId: record.id });
      const dead = await eventually(() => getDelivery(record.id), (r) => r.body.state === 'dead');
      expect(timedOut).toBe(true);
      expect(dead.body.attempts).toBe(8);
      expect(dead.body.attemptLog).toHaveLength(8);
      expect(receiver.received.filter((r) => r.headers['webhook-id'] === record.eventId)).toHaveLength(1);
      expect((await readEndpoint(endpoint.id)).consecutiveFailures).toBe(1);
    } finally {
      table().middlewareStack.remove(name);
    }
  });
});

describe('a destination copy older than WEBHOOK_DESTINATION_SNAPSHOT_SECONDS is read again', () => {
  /** A delivery whose copy of the destination was made `ageSeconds` ago (as after a long retry wait). */
  const deliveryWithOldCopy = async (endpointId: string, ageSeconds: number) => {
    const { event } = orderCreatedEvent(world.tenant.id, { reference: 'PED-9' });
    const readAt = new Date(Date.now() - ageSeconds * 1000);
    const record = newDelivery(event, { record: toEndpointRecord(await readEndpoint(endpointId)), readAt }, new Date());
    await runAs(OPERATOR, () => table().send(new PutCommand(putNewDelivery(record).item.Put!)));
    return record;
  };

  it('a destination disabled since its copy was made gets no request; the attempt read it (three calls)', async () => {
    const endpoint = await createEndpoint('disabled-later');
    const record = await deliveryWithOldCopy(endpoint.id, COPY_SECONDS + 1);
    expect((await world.tenant.call(world.admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, active: false } })).status).toBe(200);
    await stack().webhooks.queue.send({ tenantId: world.tenant.id, deliveryId: record.id });
    const dead = await eventually(() => getDelivery(record.id), (r) => r.body.state === 'dead');
    expect(dead.body.lastOutcome).toBe('destination_disabled');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === record.eventId)).toHaveLength(0);
    expect(perAttempt(record.id, endpoint.id)[0].map((c) => c.target)).toEqual([`DLV#${record.id}`, `WHEP#${endpoint.id}`, `DLV#${record.id}`]);
  });

  it('a rotated secret signs the attempt of an older copy, and the record keeps the fresh copy', async () => {
    const created = (await world.tenant.call(world.admin, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/rotated`, eventTypes: ['distribution.order.created'] } })).body;
    const record = await deliveryWithOldCopy(created.endpoint.id, COPY_SECONDS + 1);
    const rotated = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${created.endpoint.id}/secrets`, { body: { version: 1, graceSeconds: 0 } })).body;
    await stack().webhooks.queue.send({ tenantId: world.tenant.id, deliveryId: record.id });
    await eventually(() => getDelivery(record.id), (r) => r.body.state === 'succeeded');
    const [request] = receiver.received.filter((r) => r.headers['webhook-id'] === record.eventId);
    expect(() => new Webhook(rotated.secret.value).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    expect((await readDeliveryItem(record.id)).destination).toMatchObject({ version: 2, currentSecret: { id: rotated.secret.id } });
  });
});
