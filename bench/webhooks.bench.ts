import { request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { webhookWorker } from '../functions/jobs.ts';
import { newDelivery, putNewDelivery, type DeliveryRecord } from '../functions/webhooks/delivery-record.ts';
import { toEndpointRecord } from '../functions/webhooks/endpoint-record.ts';
import { handler } from '../functions/webhooks/worker/handler.ts';
import { currentFunction, invokedAs } from '../shared/aws-calls/identity.ts';
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
 * `npm run bench:webhooks`: (1) one delivery attempt through the worker (its SQS handler, as
 * the Lambda runtime calls it: claim, destination copy, unseal, sign, POST, record) beside the
 * same table calls and the same POST made directly, in alternating blocks of one run, one
 * attempt at a time and then 10 at a time, with the worker's table calls per attempt counted
 * at the client; (2) the time from an outbox event to the first attempt reaching the
 * receiver, with 1 and with 100 subscribed destinations.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 50);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 30);
const CONCURRENCY = 10;

// 102 destinations are made below: above the default cap of 100 active ones per tenant.
const stack = await startLocalStack({ port: 0, env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_MAX_ACTIVE_ENDPOINTS: '200' } });
const receiver = await new Receiver().start();
const tenant = await TestTenant.create(stack);
const admin = await tenant.member('admin', { mfa: true });
const createEndpoint = async (path: string, eventTypes: string[]) =>
  (await call(stack, 'POST', '/v1/webhooks/endpoints', { token: admin.token, tenantId: tenant.id, idempotencyKey: crypto.randomUUID(), body: { url: `${receiver.url}/${path}`, eventTypes } })).body;
console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${availableParallelism()} CPUs)`);

// (1) One attempt: the worker against the same calls made directly.
const { endpoint, secret } = await createEndpoint('attempts', ['field.route.started']);
const endpointKey = keys.webhookEndpoint(tenant.id, endpoint.id);
const destination = toEndpointRecord((await table().send(new GetCommand({ TableName: tableName(), Key: endpointKey, ConsistentRead: true }))).Item!);

/** Deliveries as the fan-out makes them, with the destination copy it read, made untimed before each block. */
const freshDeliveries = async (count: number) => {
  const made: DeliveryRecord[] = [];
  for (let i = 0; i < count; i++) {
    const { event } = outboxEvent(tenant.id, 'field.route.started', { routeId: newId() }, new Date());
    const record = newDelivery(event, { record: destination, readAt: new Date() }, new Date());
    await table().send(new PutCommand(putNewDelivery(record).item.Put!));
    made.push(record);
  }
  return made;
};

const port = Number(new URL(receiver.url).port);
const post = (body: string, headers: Record<string, string>) =>
  new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/hooks/attempts', method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });

let workerCalls = 0;
table().middlewareStack.add(
  (next) => async (args) => {
    if (currentFunction() === webhookWorker.name) workerCalls++;
    return next(args);
  },
  { step: 'initialize', name: 'count-worker-calls' },
);
const worker = invokedAs(webhookWorker.name, handler);
const viaWorker = async (r: DeliveryRecord) => {
  const { batchItemFailures } = await worker({ Records: [{ messageId: r.id, body: JSON.stringify({ tenantId: tenant.id, deliveryId: r.id }) }] } as never);
  if (batchItemFailures.length > 0) throw new Error('the worker failed an attempt');
};

/**
 * The floor: the claim (with the delivery back), the same POST signed beforehand, the record.
 * `readDestination`: the floor of the worker before it kept a destination copy, which read the
 * destination after its claim (three calls).
 */
const direct = async (r: DeliveryRecord, readDestination = false) => {
  const key = keys.delivery(tenant.id, r.id);
  const now = new Date();
  const { Attributes } = await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #s = :d, leaseToken = :t, leaseUntil = :u, gsi2pk = :pk, gsi2sk = :sk',
      ConditionExpression: 'attribute_exists(pk) AND expiresAt > :epoch AND ((#s = :p AND nextAttemptAt <= :due) OR (#s = :d AND leaseUntil < :now))',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':d': 'delivering', ':t': 'x', ':u': now.toISOString(), ':pk': 'DUE#0', ':sk': now.toISOString(), ':epoch': 0, ':p': 'pending', ':due': new Date(now.getTime() + 1000).toISOString(), ':now': now.toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  if (readDestination) await table().send(new GetCommand({ TableName: tableName(), Key: endpointKey, ConsistentRead: true }));
  const ts = Math.floor(Date.now() / 1000);
  await post(Attributes!.payload as string, signedHeaders.get(r.id)!(ts));
  await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression:
        'SET #s = :ok, attempts = :one, lastAttemptAt = :at, lastStatus = :st, lastOutcome = :o, nextAttemptAt = :n, succeededAt = :at, deadAt = :n, attemptLog = :log, attemptLogOmitted = :z REMOVE leaseToken, leaseUntil, gsi2pk, gsi2sk',
      ConditionExpression: 'leaseToken = :t',
      ExpressionAttributeNames: { '#s': 'state' },
      ExpressionAttributeValues: { ':ok': 'succeeded', ':one': 1, ':at': now.toISOString(), ':st': 204, ':o': 'success', ':n': null, ':log': [{ attemptNo: 1, trigger: 'auto', startedAt: now.toISOString(), durationMs: 1, outcome: 'success', statusCode: 204 }], ':z': 0, ':t': 'x' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
};
const signedHeaders = new Map<string, (ts: number) => Record<string, string>>();
const sign = (records: DeliveryRecord[]) => {
  for (const r of records) signedHeaders.set(r.id, (ts) => webhookHeaders(r.eventId, ts, signPayload([secret.value], r.eventId, ts, r.payload)));
};

/** Alternating blocks of `BLOCK` attempts each side, `width` at a time; each attempt timed on its own. */
const measure = async (width: number) => {
  const samples = { worker: [] as number[], direct: [] as number[], direct3: [] as number[] };
  const seconds = { worker: 0, direct: 0, direct3: 0 };
  // CPU time of this process (not DynamoDB Local's): what the machine's load does not change much.
  const cpu = { worker: 0, direct: 0, direct3: 0 };
  let attempts = 0;
  const callsBefore = workerCalls;
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of ['worker', 'direct', 'direct3'] as const) {
      const records = await freshDeliveries(BLOCK);
      sign(records);
      let next = 0;
      const start = performance.now();
      const cpuBefore = process.cpuUsage();
      await Promise.all(
        Array.from({ length: width }, async () => {
          while (next < records.length) {
            const r = records[next++];
            const t0 = performance.now();
            await (side === 'worker' ? viaWorker(r) : direct(r, side === 'direct3'));
            samples[side].push(performance.now() - t0);
          }
        }),
      );
      seconds[side] += (performance.now() - start) / 1000;
      const used = process.cpuUsage(cpuBefore);
      cpu[side] += (used.user + used.system) / 1000;
      if (side === 'worker') attempts += records.length;
    }
  }
  return { samples, seconds, cpu, callsPerAttempt: (workerCalls - callsBefore) / attempts };
};

console.log(`\nOne delivery attempt (success, loopback receiver): ${ROUNDS} rounds of ${BLOCK} attempts each side, alternating\n`);
console.log('| at a time | worker p50 ms | direct p50 ms | ratio p50 | worker p99 ms | direct p99 ms | ratio p99 | worker/s | direct/s | ratio | worker table calls per attempt | 3-call direct p50 / p99 ms | worker / 3-call direct, p50 |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
const cpuLines: string[] = [];
for (const width of [1, CONCURRENCY]) {
  const { samples, seconds, cpu, callsPerAttempt } = await measure(width);
  cpuLines.push(`| ${width} | ${fmt(cpu.worker / samples.worker.length)} | ${fmt(cpu.direct / samples.direct.length)} | ${fmt(cpu.direct3 / samples.direct3.length)} |`);
  const [w50, d50, w99, d99] = [percentile(samples.worker, 50), percentile(samples.direct, 50), percentile(samples.worker, 99), percentile(samples.direct, 99)];
  const [t50, t99] = [percentile(samples.direct3, 50), percentile(samples.direct3, 99)];
  const [wRate, dRate] = [samples.worker.length / seconds.worker, samples.direct.length / seconds.direct];
  console.log(
    `| ${width} | ${fmt(w50)} | ${fmt(d50)} | ${(d50 / w50).toFixed(2)} | ${fmt(w99)} | ${fmt(d99)} | ${(d99 / w99).toFixed(2)} | ${wRate.toFixed(0)} | ${dRate.toFixed(0)} | ${(wRate / dRate).toFixed(2)} | ${callsPerAttempt.toFixed(2)} | ${fmt(t50)} / ${fmt(t99)} | ${(t50 / w50).toFixed(2)} |`,
  );
}
console.log('\nratio: direct / worker for times, worker / direct for rates (1.00 = the worker costs nothing over its table calls and POST);');
console.log('3-call direct: the same plus the destination GetItem the worker made before it kept a copy (its old floor)');
console.log('\nCPU time of the bench process per attempt, ms (DynamoDB Local runs in its own process)\n');
console.log('| at a time | worker | direct | 3-call direct |');
console.log('|---|---|---|---|');
for (const line of cpuLines) console.log(line);
console.log(`load average at the end of (1): ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

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
