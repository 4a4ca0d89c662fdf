import { request } from 'node:http';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newDelivery, putNewDelivery } from '../functions/webhooks/delivery-record.ts';
import { signPayload, webhookHeaders } from '../functions/webhooks/transport/signature.ts';
import { startLocalStack } from '../infra/local/stack.ts';
import { outboxEvent } from '../shared/events/outbox.ts';
import { newId } from '../shared/ids.ts';
import { keys } from '../shared/table/keys.ts';
import { table, tableName } from '../shared/table/client.ts';
import { commit } from '../shared/table/transaction.ts';
import { call, TestTenant } from '../test/support/api.ts';
import { Receiver } from '../test/support/receiver.ts';
import { fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench:webhooks`: (1) deliveries per second through the worker (claim, unseal, sign,
 * POST, record) into a loopback receiver, beside raw POSTs of the same signed bodies to the same
 * receiver at the same concurrency; (2) the time from an outbox event to the first attempt
 * reaching the receiver, with 1 and with 100 subscribed destinations.
 */
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 400);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const CONCURRENCY = 50; // the local queue hands the worker 5 batches of 10 at once

// 102 destinations are made below: above the default cap of 100 active ones per tenant.
const stack = await startLocalStack({ port: 0, env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_MAX_ACTIVE_ENDPOINTS: '200' } });
const receiver = await new Receiver().start();
const tenant = await TestTenant.create(stack);
const admin = await tenant.member('admin', { mfa: true });
const createEndpoint = async (path: string, eventTypes: string[]) =>
  (await call(stack, 'POST', '/v1/webhooks/endpoints', { token: admin.token, tenantId: tenant.id, idempotencyKey: crypto.randomUUID(), body: { url: `${receiver.url}/${path}`, eventTypes } })).body;

// (1) Throughput.
const { endpoint, secret } = await createEndpoint('throughput', ['field.route.started']);
const records: ReturnType<typeof newDelivery>[] = [];
for (let i = 0; i < DELIVERIES; i++) {
  const { event } = outboxEvent(tenant.id, 'field.route.started', { routeId: newId() }, new Date());
  const record = newDelivery(event, endpoint.id, new Date());
  await table().send(new PutCommand(putNewDelivery(record).item.Put!));
  records.push(record);
}
const waitForCount = async (count: number) => {
  while (receiver.received.length < count) await new Promise((r) => setTimeout(r, 2));
};
let start = performance.now();
for (const r of records) await stack.webhooks.queue.send({ tenantId: tenant.id, deliveryId: r.id });
await waitForCount(DELIVERIES);
const workerSeconds = (performance.now() - start) / 1000;

const port = Number(new URL(receiver.url).port);
const rawPost = (body: string, headers: Record<string, string>) =>
  new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/hooks/raw', method: 'POST', agent: false, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
const signed = records.map((r) => {
  const ts = Math.floor(Date.now() / 1000);
  return { body: r.payload, headers: webhookHeaders(r.eventId, ts, signPayload([secret.value], r.eventId, ts, r.payload)) };
});
start = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < signed.length) {
      const item = signed[next++];
      await rawPost(item.body, item.headers);
    }
  }),
);
const rawSeconds = (performance.now() - start) / 1000;

// The worker's own floor: for fresh deliveries, the same table calls (claim, endpoint read,
// record) and the same POST, made directly at the same concurrency.
const floorRecords: typeof records = [];
for (let i = 0; i < DELIVERIES; i++) {
  const { event } = outboxEvent(tenant.id, 'field.route.started', { routeId: newId() }, new Date());
  const record = newDelivery(event, endpoint.id, new Date());
  await table().send(new PutCommand(putNewDelivery(record).item.Put!));
  floorRecords.push(record);
}
const floorOne = async (r: (typeof floorRecords)[number], i: number) => {
  const key = keys.delivery(tenant.id, r.id);
  await table().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET #s = :d, leaseToken = :t', ConditionExpression: '#s = :p', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':d': 'delivering', ':t': 'x', ':p': 'pending' }, ReturnValues: 'ALL_NEW' }));
  await table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(tenant.id, endpoint.id), ConsistentRead: true }));
  await rawPost(signed[i].body, signed[i].headers);
  await table().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET #s = :ok, attempts = :one, attemptLog = list_append(attemptLog, :e) REMOVE leaseToken, gsi2pk, gsi2sk', ConditionExpression: 'leaseToken = :t', ExpressionAttributeNames: { '#s': 'state' }, ExpressionAttributeValues: { ':ok': 'succeeded', ':one': 1, ':e': [{ attemptNo: 1 }], ':t': 'x' } }));
};
start = performance.now();
next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < floorRecords.length) {
      const i = next++;
      await floorOne(floorRecords[i], i);
    }
  }),
);
const floorSeconds = (performance.now() - start) / 1000;
const workerRate = DELIVERIES / workerSeconds;
const rawRate = DELIVERIES / rawSeconds;
console.log(`\nThroughput, ${DELIVERIES} deliveries, ${CONCURRENCY} at a time, loopback receiver\n`);
console.log('| path | deliveries/s | ratio to raw |');
console.log('|---|---|---|');
console.log(`| worker (claim, unseal, sign, POST, record) | ${workerRate.toFixed(0)} | ${(workerRate / rawRate).toFixed(2)} |`);
console.log(`| raw POST of the same signed bodies | ${rawRate.toFixed(0)} | 1.00 |`);
const floorRate = DELIVERIES / floorSeconds;
console.log(`| the same table calls and POST made directly | ${floorRate.toFixed(0)} | ${(floorRate / rawRate).toFixed(2)} |`);
console.log(`\nworker / (same table calls + POST made directly): ${(workerRate / floorRate).toFixed(2)}`);

// (2) Latency from the outbox write to the first attempt at the receiver.
const latency = async (destinations: number): Promise<number[]> => {
  const paths: string[] = [];
  for (let i = 0; i < destinations; i++) {
    const path = `lat-${destinations}-${i}`;
    await createEndpoint(path, ['distribution.order.created']);
    paths.push(path);
  }
  const samples: number[] = [];
  for (let e = 0; e < EVENTS; e++) {
    const { event, write } = outboxEvent(tenant.id, 'distribution.order.created', { orderId: newId(), reference: `B-${e}`, state: 'pending' }, new Date());
    const before = receiver.received.length;
    const t0 = Date.now();
    await commit([write]);
    while (receiver.received.slice(before).filter((r) => r.headers['webhook-id'] === event.id).length < destinations) await new Promise((r) => setTimeout(r, 2));
    for (const r of receiver.received.slice(before)) if (r.headers['webhook-id'] === event.id) samples.push(r.at - t0);
  }
  return samples;
};
console.log(`\nOutbox event to first attempt at the receiver (${EVENTS} events; the local stream reader polls every 100 ms when idle)\n`);
console.log('| subscribed destinations | p50 ms | p99 ms | samples |');
console.log('|---|---|---|---|');
for (const n of [1, 100]) {
  // Each round adds its own destinations; the earlier ones stay subscribed to other kinds only.
  const samples = await latency(n);
  console.log(`| ${n} | ${fmt(percentile(samples, 50))} | ${fmt(percentile(samples, 99))} | ${samples.length} |`);
  // Unsubscribe this round's destinations so the next round measures exactly its own count.
  const list = (await call(stack, 'GET', '/v1/webhooks/endpoints', { token: admin.token, tenantId: tenant.id })).body.items;
  for (const e of list.filter((x: { eventTypes: string[] }) => x.eventTypes.includes('distribution.order.created'))) {
    await call(stack, 'PATCH', `/v1/webhooks/endpoints/${e.id}`, { token: admin.token, tenantId: tenant.id, body: { version: e.version, eventTypes: ['routing.plan.approved'] } });
  }
}

await receiver.stop();
await stack.stop();
