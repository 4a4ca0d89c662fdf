import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { newDelivery, putNewDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { updateEndpoint } from '../../../functions/webhooks/endpoints.ts';
import { orderCreatedEvent } from './order-event.ts';
import { newId } from '../../../shared/ids.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld({ retryDelay: '0', env: { WEBHOOK_LEASE_SECONDS: '1', WEBHOOK_SWEEP_GRACE_SECONDS: '0', WEBHOOK_MAX_MANUAL_RETRIES: '2' } });
const { stack, receiver } = world;
receiver.reply = (request) => ({ status: request.path.includes('/failing') ? 500 : 204 });

const createEndpoint = async (path: string) => (await world.createEndpoint(['distribution.order.created'], path)).endpoint;
const readEndpoint = async (id: string) => (await table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, id), ConsistentRead: true }))).Item!;
const setFailures = (id: string, count: number) =>
  table().send(new UpdateCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, id), UpdateExpression: 'SET consecutiveFailures = :n', ExpressionAttributeValues: { ':n': count } }));
const getDelivery = (id: string) => world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${id}`);
const requestsFor = (eventId: string) => receiver.received.filter((r) => r.headers['webhook-id'] === eventId);
const orderCreated = (at = new Date()) => orderCreatedEvent(world.tenant.id, { at, reference: 'PED-7' }).event;

/** Makes the first write that touches this destination fail as if a concurrent transaction held it. */
const conflictOnceOn = (endpointId: string) => {
  const name = `conflict-${newId()}`;
  const sk = keys.webhookEndpoint(world.tenant.id, endpointId).sk;
  let fired = false;
  table().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Key?: { sk?: string }; TransactItems?: Array<Record<string, { Key?: { sk?: string }; Item?: { sk?: string } }>> };
      const inTransaction = input.TransactItems?.some((item) => Object.values(item)[0]?.Key?.sk === sk);
      if (!fired && (inTransaction || (input.Key?.sk === sk && 'UpdateExpression' in (args.input as object)))) {
        fired = true;
        const $metadata = {};
        if (inTransaction) {
          throw new TransactionCanceledException({
            message: 'Transaction cancelled',
            $metadata,
            CancellationReasons: input.TransactItems!.map((item) => ({ Code: Object.values(item)[0]?.Key?.sk === sk ? 'TransactionConflict' : 'None' })),
          });
        }
        throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { get fired() { return fired; }, remove: () => table().middlewareStack.remove(name) };
};

describe('the destination failure count', () => {
  it('a conflict on the count after a successful POST neither sends again nor loses the attempt', async () => {
    const endpoint = await createEndpoint('conflict');
    await setFailures(endpoint.id, 3);
    const injected = conflictOnceOn(endpoint.id);
    try {
      const record = newDelivery(orderCreated(), endpoint.id, new Date());
      await table().send(new PutCommand(putNewDelivery(record).item.Put!));
      await stack().webhooks.queue.send({ tenantId: world.tenant.id, deliveryId: record.id });
      await eventually(async () => injected.fired, (fired) => fired);
      const done = await eventually(() => getDelivery(record.id), (r) => r.body.state === 'succeeded');
      // Past the lease, the sweeper would find an unrecorded attempt and send it again.
      await new Promise((r) => setTimeout(r, 1_200));
      await stack().webhooks.sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(requestsFor(record.eventId)).toHaveLength(1);
      expect(done.body.attemptLog).toHaveLength(1);
      expect(done.body.attempts).toBe(1);
      expect((await getDelivery(record.id)).body.attempts).toBe(1);
      await eventually(() => readEndpoint(endpoint.id), (e) => e.consecutiveFailures === 0);
    } finally {
      injected.remove();
    }
  });

  it.each(['before', 'after'] as const)('a record write that times out %s reaching the table is tried again: the attempt is neither lost nor made twice', async (when) => {
    const endpoint = await createEndpoint(`record-timeout-${when}`);
    const record = newDelivery(orderCreated(), endpoint.id, new Date());
    const name = `timeout-${newId()}`;
    let timedOut = false;
    table().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: { sk?: string }; UpdateExpression?: string };
        const target = !timedOut && input.Key?.sk === `DLV#${record.id}` && input.UpdateExpression?.includes('attemptLog');
        if (target && when === 'before') timedOut = true;
        if (timedOut && target) throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
        const result = await next(args);
        if (target && when === 'after') {
          timedOut = true; // written, but the answer never came back
          throw Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });
        }
        return result;
      },
      { step: 'initialize', name },
    );
    try {
      await table().send(new PutCommand(putNewDelivery(record).item.Put!));
      await stack().webhooks.queue.send({ tenantId: world.tenant.id, deliveryId: record.id });
      const done = await eventually(() => getDelivery(record.id), (r) => r.body.state === 'succeeded');
      expect(timedOut).toBe(true);
      await new Promise((r) => setTimeout(r, 1_200));
      await stack().webhooks.sweep();
      await new Promise((r) => setTimeout(r, 300));
      expect(requestsFor(record.eventId)).toHaveLength(1);
      expect(done.body.attemptLog).toHaveLength(1);
      expect((await getDelivery(record.id)).body).toMatchObject({ state: 'succeeded', attempts: 1 });
    } finally {
      table().middlewareStack.remove(name);
    }
  });

  it('a PATCH and a count moving at the same time keep both changes; the count does not move version', async () => {
    const endpoint = await createEndpoint('concurrent');
    await setFailures(endpoint.id, 4);
    // The PATCH reads the destination, then the worker counts a dead delivery, then the PATCH commits.
    const patch = await updateEndpoint(world.tenant.id, endpoint.id, { version: 1, description: 'ERP (new)' }, new Date());
    await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.webhookEndpoint(world.tenant.id, endpoint.id), UpdateExpression: 'ADD consecutiveFailures :one', ExpressionAttributeValues: { ':one': 1 } }));
    await commit(patch.writes);
    const after = (await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body;
    expect(after).toMatchObject({ description: 'ERP (new)', consecutiveFailures: 5, version: 2 });
  });

  it('a test notification never counts toward disabling, even as the 20th dead delivery', async () => {
    const endpoint = await createEndpoint('failing-test');
    await setFailures(endpoint.id, 19);
    const test = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`);
    const dead = await eventually(() => getDelivery(test.body.id), (r) => r.body.state === 'dead', 120_000);
    expect(dead.body.attempts).toBe(8);
    const after = (await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body;
    expect(after).toMatchObject({ state: 'active', disabledReason: null, consecutiveFailures: 19, version: 1 });
  }, 240_000);

  it('a test notification that succeeds does not reset the count either', async () => {
    const endpoint = await createEndpoint('healthy-test');
    await setFailures(endpoint.id, 7);
    const test = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`);
    await eventually(() => getDelivery(test.body.id), (r) => r.body.state === 'succeeded');
    expect((await readEndpoint(endpoint.id)).consecutiveFailures).toBe(7);
  });
});

describe('bounds on one delivery', () => {
  it('the attempt log keeps its first 3 and latest 17 entries and counts the ones left out', async () => {
    const endpoint = await createEndpoint('long-log');
    const record = newDelivery(orderCreated(), endpoint.id, new Date());
    const history = Array.from({ length: 20 }, (_, i) => ({ attemptNo: i + 1, trigger: 'auto', startedAt: new Date().toISOString(), durationMs: 5, outcome: 'http_status', statusCode: 500 }));
    const item = { ...putNewDelivery(record).item.Put!.Item!, state: 'dead', attempts: 20, attemptLog: history, lastOutcome: 'http_status', lastStatus: 500 };
    delete (item as Record<string, unknown>).gsi2pk;
    delete (item as Record<string, unknown>).gsi2sk;
    await table().send(new PutCommand({ TableName: tableName(), Item: item }));

    expect((await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${record.id}/retry`)).status).toBe(202);
    const done = await eventually(() => getDelivery(record.id), (r) => r.body.state === 'succeeded');
    expect(done.body.attemptLog).toHaveLength(20);
    expect(done.body.attemptLog.map((e: { attemptNo: number }) => e.attemptNo)).toEqual([1, 2, 3, ...Array.from({ length: 17 }, (_, i) => i + 5)]);
    expect(done.body.attemptLog[19]).toMatchObject({ attemptNo: 21, trigger: 'manual', outcome: 'success' });
    expect(done.body.attemptLogOmitted).toBe(1);
  });

  it('manual retries stop at WEBHOOK_MAX_MANUAL_RETRIES with 409 retry_limit_reached', async () => {
    const endpoint = await createEndpoint('retried');
    const test = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`);
    await eventually(() => getDelivery(test.body.id), (r) => r.body.state === 'succeeded');
    for (let i = 1; i <= 2; i++) {
      const retried = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${test.body.id}/retry`);
      expect(retried.status, retried.text).toBe(202);
      await eventually(() => getDelivery(test.body.id), (r) => r.body.state === 'succeeded' && r.body.manualRetries === i);
    }
    const refused = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/deliveries/${test.body.id}/retry`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('retry_limit_reached');
    expect((await getDelivery(test.body.id)).body).toMatchObject({ state: 'succeeded', manualRetries: 2, attempts: 3 });
  });
});
