import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { activePreviewsKey } from '../../../functions/routing/previews/active-limit.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { epochSeconds } from '../../../shared/clock.ts';
import { resetTableClient, table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { DynamoDbFaultProxy } from '../../support/dynamodb-fault-proxy.ts';
import { seedOrders } from '../../support/seed-orders.ts';
import { useLocalStack } from '../../support/stack.ts';
import { makeDepot, makeOrder, makeVehicle, ok, SERVICE_DATE, waitForPreview } from './support.ts';

const stack = useLocalStack();

const stored = (key: { pk: string; sk: string }) => runAs(OPERATOR, async () => (await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item);

/** A tenant with a depot, a vehicle and one pending order, and the body of a preview of it. */
const planningTenant = async () => {
  const tenant = await TestTenant.create(stack());
  const admin = await tenant.member('admin');
  const operator = await tenant.member('operator');
  const depot = await makeDepot(tenant, admin);
  const vehicle = await makeVehicle(tenant, admin);
  const order = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62 });
  const body = { serviceDate: SERVICE_DATE, depotId: depot.id, orderIds: [order.id], vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }], timeLimitSeconds: 1 };
  return { tenant, admin, operator, depot, body };
};

const ask = (tenant: TestTenant, member: TestMember, body: Record<string, unknown>) => tenant.call(member, 'POST', '/v1/routing/previews', { body });

describe('previews at scale: the guards of decisions 18', () => {
  it('keeps at most 5 previews queued or solving per tenant, concurrent asks included, and frees a place when one ends', async () => {
    const { tenant, operator, body } = await planningTenant();
    const queue = stack().previews.queue;
    await queue.stop();
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => ask(tenant, operator, body)));
      const accepted = answers.filter((a) => a.status === 202);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(accepted.length).toBeLessThanOrEqual(5);
      for (const refused of answers.filter((a) => a.status !== 202)) {
        expect(refused.status, refused.text).toBe(409);
        // A request that lost its race five times over is told to retry; none passes the cap.
        expect(['previews_limit', 'concurrent_update']).toContain(refused.body.code);
      }
      for (let i = accepted.length; i < 5; i++) ok(await ask(tenant, operator, body), 202);
      const sixth = await ask(tenant, operator, body);
      expect(sixth.status, sixth.text).toBe(409);
      expect(sixth.headers.get('content-type')).toContain('application/problem+json');
      expect(sixth.body.code).toBe('previews_limit');
      const listed = ok(await tenant.call(operator, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items;
      expect(listed.map((p: any) => p.state)).toEqual(['queued', 'queued', 'queued', 'queued', 'queued']);
      expect((await stored(activePreviewsKey(tenant.id)))?.active).toBe(5);

      // Another company is not held by this one's previews.
      const other = await planningTenant();
      ok(await ask(other.tenant, other.operator, other.body), 202);

      // The sweeper gives up on them past their deadline: each ends failed, its place given back once.
      const swept = await stack().previews.sweep(new Date(Date.now() + 10 * 60_000));
      expect(swept.timedOut).toBeGreaterThanOrEqual(5);
      expect((await stored(activePreviewsKey(tenant.id)))?.active).toBe(0);
      expect((await stack().previews.sweep(new Date(Date.now() + 20 * 60_000))).timedOut).toBe(0);
      expect((await stored(activePreviewsKey(tenant.id)))?.active).toBe(0);
    } finally {
      queue.start();
    }
    // A place is free again; the worker ending a preview gives its place back too.
    const again = ok(await ask(tenant, operator, body), 202);
    expect((await waitForPreview(tenant, operator, again.id)).state).toBe('ready');
    expect((await stored(activePreviewsKey(tenant.id)))?.active).toBe(0);
  }, 60_000);

  it('takes objective vehicles and shows what stopped the search', async () => {
    const { tenant, operator, body } = await planningTenant();
    const asked = ok(await ask(tenant, operator, { ...body, objective: 'vehicles' }), 202);
    expect(asked).toMatchObject({ objective: 'vehicles', state: 'queued', solver: { stoppedBy: null } });
    const ready = await waitForPreview(tenant, operator, asked.id);
    expect(ready).toMatchObject({ objective: 'vehicles', state: 'ready', totals: { routeCount: 1, assignedCount: 1 }, solver: { stoppedBy: 'work' } });
    const refused = await ask(tenant, operator, { ...body, objective: 'fleet' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('must be duration, distance or vehicles');
  });

  it('keeps a preview 30 days after it ends, then reads it as gone though the TTL has not deleted it yet', async () => {
    const { tenant, admin, operator, body } = await planningTenant();
    const asked = ok(await ask(tenant, operator, body), 202);
    const queued = await stored(opsKeys.preview(tenant.id, asked.id));
    expect(queued?.expiresAt).toBeUndefined();
    const ready = await waitForPreview(tenant, operator, asked.id);
    const item = await stored(opsKeys.preview(tenant.id, asked.id));
    expect(item?.expiresAt).toBe(epochSeconds(new Date(ready.updatedAt)) + 30 * 86_400);

    // Thirty days on: DynamoDB deletes within days, so the item is still there.
    await runAs(OPERATOR, () =>
      table().send(
        new UpdateCommand({ TableName: tableName(), Key: opsKeys.preview(tenant.id, asked.id), UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': epochSeconds() - 1 } }),
      ),
    );
    const read = await tenant.call(operator, 'GET', `/v1/routing/previews/${asked.id}`);
    expect(read.status, read.text).toBe(404);
    expect((await tenant.call(operator, 'GET', `/v1/routing/previews/${asked.id}/map.svg`)).status).toBe(404);
    expect((await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: asked.id } })).status).toBe(404);
    expect(ok(await tenant.call(admin, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items).toEqual([]);
  });

  it('refuses a whole-day preview of more than 1,000 pending orders before it reads them', async () => {
    const { tenant, operator, body } = await planningTenant();
    const day = '2026-12-01';
    await seedOrders(
      tenant.id,
      Array.from({ length: 1001 }, (_, i) => [-33.4 - (i % 40) * 0.005, -70.6 - Math.floor(i / 40) * 0.005]),
      day,
    );
    const { orderIds: _named, ...wholeDay } = body;
    // Any read of the day's orders themselves fails: only a count may pass.
    const proxy = new DynamoDbFaultProxy(stack().dynamoEndpoint);
    const failure = { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'the orders were read' } };
    proxy.faults.set('BatchGetItem', { ...failure, match: (request) => JSON.stringify(request).includes('"ORDER#') });
    proxy.faults.set('Query', { ...failure, match: (request) => JSON.stringify(request).includes(`#ORDERS#${day}`) && request.Select !== 'COUNT' });
    const original = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = await proxy.start();
    resetTableClient();
    try {
      const answer = await ask(tenant, operator, { ...wholeDay, serviceDate: day });
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body.code).toBe('invalid_preview');
      expect(answer.body.errors).toEqual([{ path: 'body.orderIds', message: expect.stringContaining('more than 1000 pending orders of 2026-12-01') }]);
    } finally {
      process.env.DYNAMODB_ENDPOINT = original;
      resetTableClient();
      await proxy.stop();
    }
    expect(ok(await tenant.call(operator, 'GET', `/v1/routing/previews?serviceDate=${day}`)).items).toEqual([]);
  }, 60_000);
});
