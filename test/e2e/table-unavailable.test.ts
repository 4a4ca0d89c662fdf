import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { resetTableClient, table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { TestTenant } from '../support/api.ts';
import { conflictedTransaction, DynamoDbFaultProxy, throttledTransaction } from '../support/dynamodb-fault-proxy.ts';
import { useLocalStack } from '../support/stack.ts';
import { orderBody } from './operations/support.ts';

const stack = useLocalStack();

/** Points the handlers' table client at another endpoint for the duration of `body`. */
const withTableAt = async (endpoint: string, body: () => Promise<void>): Promise<void> => {
  const original = process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  resetTableClient();
  try {
    await body();
  } finally {
    process.env.DYNAMODB_ENDPOINT = original;
    resetTableClient();
  }
};

describe('503: the table cannot answer', () => {
  it('answers 503 problem+json with Retry-After, and recovers when the table is back', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
    await withTableAt(`http://127.0.0.1:${await freePort()}`, async () => {
      const down = await tenant.call(admin, 'POST', '/v1/assistant/questions', { body: { text: 'dónde está el camión' } });
      expect(down.status, down.text).toBe(503);
      expect(down.headers.get('content-type')).toBe('application/problem+json');
      expect(down.body.code).toBe('dependency_unavailable');
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    });
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
  });

  it('runs an operation that races on a shared item again when DynamoDB cancels its transaction for a conflict; others answer 409', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const proxy = new DynamoDbFaultProxy(stack().dynamoEndpoint);
    try {
      await withTableAt(await proxy.start(), async () => {
        // The day's counter and the audit entry: the counter's item conflicts once, the second run commits.
        proxy.faults.set('TransactWriteItems', conflictedTransaction(2, 0));
        const asked = await tenant.call(admin, 'POST', '/v1/assistant/asked', { body: { question: 'idle' } });
        expect(asked.status, asked.text).toBe(204);
        expect(proxy.faults.has('TransactWriteItems')).toBe(false);
        // A create decided by what the client sent is not run again: the conflict is the client's to retry.
        proxy.faults.set('TransactWriteItems', conflictedTransaction(4, 1));
        const vehicle = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: randomUUID().slice(0, 6), label: 'Furgón Norte' } });
        expect(vehicle.status, vehicle.text).toBe(409);
        expect(vehicle.body.code).toBe('concurrent_update');
      });
    } finally {
      await proxy.stop();
    }
    const day = new Date().toISOString().slice(0, 10);
    const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.askedCounter(tenant.id, day, 'idle'), ConsistentRead: true }));
    expect(Item?.asked).toBe(1);
  });

  it('runs a route assignment again when its new plate’s claim conflicts, and makes one vehicle', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const order = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('CONFLICT-1') });
    const plan = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ vehicleRouteId: 'V1', orderIds: [order.body.id] }] } });
    expect((await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.body.id}/approve`, { body: { version: 1 } })).status).toBe(200);
    const proxy = new DynamoDbFaultProxy(stack().dynamoEndpoint);
    try {
      await withTableAt(await proxy.start(), async () => {
        // Idempotency record, plan route claim, route, vehicle, plate claim (index 4), stop, order, event, audit.
        proxy.faults.set('TransactWriteItems', conflictedTransaction(9, 4));
        const body = { routePlanId: plan.body.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: 'CNFL-12', label: 'Van' } };
        const route = await tenant.call(operator, 'POST', '/v1/field/routes', { body });
        expect(route.status, route.text).toBe(201);
        expect(proxy.faults.has('TransactWriteItems')).toBe(false);
      });
    } finally {
      await proxy.stop();
    }
    expect((await tenant.call(operator, 'GET', '/v1/fleet/vehicles')).body.items).toHaveLength(1);
  });

  it('answers 503 with Retry-After when DynamoDB cancels the transaction for throttling, and commits nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const proxy = new DynamoDbFaultProxy(stack().dynamoEndpoint);
    const key = randomUUID();
    const body = { plate: randomUUID().slice(0, 6), label: 'Furgón Sur' };
    try {
      await withTableAt(await proxy.start(), async () => {
        for (const reason of ['ThrottlingError', 'ProvisionedThroughputExceeded'] as const) {
          proxy.faults.set('TransactWriteItems', throttledTransaction(3, reason));
          const throttled = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body, idempotencyKey: key });
          expect(throttled.status, throttled.text).toBe(503);
          expect(throttled.headers.get('content-type')).toBe('application/problem+json');
          expect(throttled.body.code).toBe('dependency_unavailable');
          expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        // The SDK's own throttling error on a read, after its retries, is the same 503.
        proxy.faults.set('GetItem', { status: 400, body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate of requests exceeds the allowed throughput.' } });
        const read = await tenant.call(admin, 'GET', '/v1/fleet/vehicles');
        expect(read.status, read.text).toBe(503);
        expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
      });
    } finally {
      await proxy.stop();
    }
    // Nothing was committed: the same key now creates the vehicle, as a first answer.
    const retried = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body, idempotencyKey: key });
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).body.items).toHaveLength(1);
  });

  it('answers 503 when the table takes a request and never answers, instead of waiting on it', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    // Accepts every connection and request, answers none: a hung table (found under load).
    const hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const timeout = process.env.TABLE_REQUEST_TIMEOUT_MS;
    process.env.TABLE_REQUEST_TIMEOUT_MS = '300';
    try {
      await withTableAt(`http://127.0.0.1:${(hung.address() as AddressInfo).port}`, async () => {
        const answer = await tenant.call(admin, 'GET', '/v1/fleet/vehicles');
        expect(answer.status, answer.text).toBe(503);
        expect(answer.body.code).toBe('dependency_unavailable');
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      });
    } finally {
      process.env.TABLE_REQUEST_TIMEOUT_MS = timeout;
      resetTableClient();
      hung.closeAllConnections();
      await new Promise<void>((resolve) => hung.close(() => resolve()));
    }
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
  });
});
