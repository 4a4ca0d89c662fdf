import { isDeepStrictEqual } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { viewOfOrder, viewsOfRoute } from '../../../functions/tracking/projection.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { call, TestTenant, type TestMember } from '../../support/api.ts';
import type { SeededOrder } from '../../support/seed-orders.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, tokenOf } from '../operations/support.ts';
import { approvedPlan, assignBody, createOrders } from './support.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const stack = useLocalStack();

const STOPS = 8;

let tenant: TestTenant;
let operator: TestMember;
let driver: TestMember;
let orders: SeededOrder[];

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  [operator, driver] = await Promise.all([tenant.member('operator'), tenant.member('driver', { firstName: 'Rosa' })]);
  orders = await createOrders(tenant, operator, STOPS, 'SCOPE');
});

/** A view as the page reads it: no keys, build time or expiry, no undefined fields. */
const comparable = (view: Record<string, unknown> | undefined) => {
  if (!view) return undefined;
  const { builtAt: _b, expiresAt: _e, pk: _p, sk: _s, entity: _n, ...rest } = view;
  return JSON.parse(JSON.stringify(rest));
};

/** Every order's stored view beside the view the projection builds now from the items as they are, whole. */
const differences = async (routeId: string): Promise<string[]> =>
  runAs(OPERATOR, async () => {
    const builtAt = new Date().toISOString();
    const rebuilt = new Map((await viewsOfRoute(tenant.id, routeId, builtAt)).map((v) => [v.token, v]));
    const found: string[] = [];
    for (const order of orders) {
      const token = tokenOf(order);
      const own = (await viewOfOrder(tenant.id, order.id, builtAt)).view;
      const expected = comparable((own ?? rebuilt.get(token)) as Record<string, unknown> | undefined);
      const stored = comparable((await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.trackingView(token), ConsistentRead: true }))).Item);
      if (!isDeepStrictEqual(stored, expected)) found.push(`${order.reference}: stored ${JSON.stringify(stored)}, rebuilt ${JSON.stringify(expected)}`);
    }
    return found;
  });

/** The projection follows the stream: wait until every stored view is the one a whole rebuild makes. */
const expectViewsConverge = async (routeId: string) => {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  let found = await differences(routeId);
  while (found.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    found = await differences(routeId);
  }
  expect(found).toEqual([]);
};

const view = async (order: SeededOrder) => (await call(stack(), 'GET', `/v1/track/${tokenOf(order)}`)).body;

describe('the tracking views of a route, rebuilt only where a change moves them', () => {
  it('agree with a whole rebuild after every step of a route: assigned, started, positions, outcomes, a cancelled order, evidence, a resequence, the cancel', async () => {
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
    const route = created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) }));
    const stops = route.stops as { id: string; orderId: string }[];
    await expectViewsConverge(route.id);
    expect(await view(orders[5])).toMatchObject({ state: 'pending', stopsBefore: 5 });

    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`), 200);
    await expectViewsConverge(route.id);
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.41, longitude: -70.69, recordedAt: new Date().toISOString() } }), 202);
    await expectViewsConverge(route.id);
    expect(await view(orders[5])).toMatchObject({ state: 'on_the_way', driver: { firstName: 'Rosa' } });

    // An outcome in the middle: the stops behind it have one stop fewer before them.
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stops[2].id}/deliver`, { body: {} }), 200);
    await expectViewsConverge(route.id);
    expect(await view(orders[5])).toMatchObject({ stopsBefore: 4 });
    expect(await view(orders[1])).toMatchObject({ stopsBefore: 1 });
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stops[0].id}/fail`, { body: { reason: 'Nadie en el domicilio' } }), 200);
    await expectViewsConverge(route.id);
    expect(await view(orders[5])).toMatchObject({ stopsBefore: 3 });

    // An order cancelled on the route cancels its stop: the stops behind it move up.
    created(await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[4].id}/cancel`, { body: { version: (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[4].id}`)).body.version } }), 200);
    await expectViewsConverge(route.id);
    // The page shows a cancelled stop as one not delivered (view.ts, stateOf).
    expect(await view(orders[4])).toMatchObject({ state: 'failed' });
    expect(await view(orders[5])).toMatchObject({ stopsBefore: 2 });

    // Evidence shows on no view; a later position moves every open stop's.
    await runAs(OPERATOR, () => table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.stop(tenant.id, route.id, stops[2].id), UpdateExpression: 'SET evidenceCount = :n', ExpressionAttributeValues: { ':n': 3 } })));
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.43, longitude: -70.67, recordedAt: new Date().toISOString() } }), 202);
    await expectViewsConverge(route.id);

    // A resequence (decisions 17) moves the open stops; an outcome after it, the stops behind its new place.
    const reordered = created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/resequence`, { body: { from: { latitude: -33.47, longitude: -70.6 } } }), 200);
    await expectViewsConverge(route.id);
    const nextOpen = [...reordered.stops].sort((a: any, b: any) => a.sequence - b.sequence).find((s: any) => s.state === 'pending');
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${nextOpen.id}/deliver`, { body: {} }), 200);
    await expectViewsConverge(route.id);

    const current = await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`);
    created(await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: current.body.version } }), 200);
    await expectViewsConverge(route.id);
    expect(await view(orders[5])).toMatchObject({ state: 'pending', stopsBefore: null });
    expect(await view(orders[2])).toMatchObject({ state: 'delivered' });
  }, 120_000);
});
