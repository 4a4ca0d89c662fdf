import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { call, TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { eventCollector, tokenOf, waitForView } from '../operations/support.ts';
import { approvedPlan, assignBody, createOrders, SERVICE_DATE, spanishShortDay, upcomingServiceDate } from './support.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { collector: collector.consumer } });

const STOPS = 300;
const HOUR = 3_600_000;

/** The planned route's day: ahead, so its windows show until the start. */
const PLANNED_DAY = upcomingServiceDate();

/** The preview's planned arrival of stop i, in Santiago's offset on that day (UTC-3 from September to April). */
const plannedAt = (i: number) => {
  const minutes = 8 * 60 + i * 2;
  return `${PLANNED_DAY}T${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00-03:00`;
};
const clock = (iso: string) => new Intl.DateTimeFormat('es-CL', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'America/Santiago' }).format(new Date(iso));

let tenant: TestTenant;
let operator: TestMember;
let driver: TestMember;
let orders: any[];

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  [operator, driver] = await Promise.all([tenant.member('operator'), tenant.member('driver')]);
  orders = await createOrders(tenant, operator, STOPS, 'LONG', PLANNED_DAY);
}, 180_000);

describe('a route of 300 stops', () => {
  it('shows no planned arrival on the stops of a client-computed plan, and the service day on the tracking page', async () => {
    const fresh = await createOrders(tenant, operator, 2, 'PLAIN');
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: fresh.map((o) => o.id) }]);
    const assigned = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) });
    expect(assigned.body.stops.map((s: any) => s.plannedArrivalAt)).toEqual([null, null]);
    const view = await waitForView(stack(), tokenOf(fresh[1]), (v) => v.stopsBefore === 1);
    expect(view).toMatchObject({ state: 'pending', eta: null });
    expect(view.etaNote).not.toBeNull();
  }, 240_000);

  it('is planned, assigned, read, started and delivered; every stop shows its planned arrival and the tracking view its window until the start', async () => {
    const plannedArrivals = Object.fromEntries(orders.map((o, i) => [o.id, plannedAt(i)]));
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }], plannedArrivals, PLANNED_DAY);
    const assigned = await tenant.call(operator, 'POST', '/v1/field/routes', { body: { ...assignBody(plan.id, driver), serviceDate: PLANNED_DAY } });
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body.stops).toHaveLength(STOPS);
    expect(assigned.body.stops.map((s: any) => s.plannedArrivalAt)).toEqual(orders.map((_, i) => plannedAt(i)));
    const routeId = assigned.body.id as string;

    // The driver's read: every stop in sequence, each with its planned arrival.
    const read = await tenant.call(driver, 'GET', `/v1/field/routes/${routeId}`);
    expect(read.status).toBe(200);
    expect(read.body.stops.map((s: any) => [s.sequence, s.orderId, s.plannedArrivalAt])).toEqual(orders.map((o, i) => [i + 1, o.id, plannedAt(i)]));
    const order = await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[250].id}`);
    expect(order.body).toMatchObject({ state: 'assigned', routeId, stopId: read.body.stops[250].id });
    await expect.poll(() => collector.events.filter((e) => e.type === 'field.route.assigned' && e.data.routeId === routeId).length).toBe(1);

    // Before the start: the two hours from an hour before the planned arrival (the order has no
    // window to fit it in), named with its day (tomorrow), and no note.
    const planned = Date.parse(plannedAt(250));
    const from = new Date(planned - HOUR).toISOString();
    const to = new Date(planned + HOUR).toISOString();
    const label = `${spanishShortDay(PLANNED_DAY)}, ${clock(from)} - ${clock(to)}`;
    const before = await waitForView(stack(), tokenOf(orders[250]), (v) => v.eta !== null);
    expect(before).toMatchObject({ state: 'pending', stopsBefore: 250, etaNote: null, eta: { from, to, label } });
    const page = await call(stack(), 'GET', `/t/${tokenOf(orders[250])}`);
    expect(page.text).toContain(label);

    const started = await tenant.call(driver, 'POST', `/v1/field/routes/${routeId}/start`);
    expect(started.status, started.text).toBe(200);
    expect(started.body.stops).toHaveLength(STOPS);
    // Once started, today's rules: no estimate until a position, then the 30-minute window.
    const moving = await waitForView(stack(), tokenOf(orders[250]), (v) => v.state === 'on_the_way');
    expect(moving.eta).toBeNull();
    expect(moving.etaNote).not.toBeNull();
    const position = await tenant.call(driver, 'POST', `/v1/field/routes/${routeId}/positions`, { body: { latitude: -33.41, longitude: -70.69, recordedAt: new Date().toISOString() } });
    expect(position.status, position.text).toBe(202);
    const estimated = await waitForView(stack(), tokenOf(orders[1]), (v) => v.eta !== null);
    expect(Date.parse(estimated.eta.to) - Date.parse(estimated.eta.from)).toBe(30 * 60_000);
    expect(estimated.etaNote).toBeNull();

    const stop = read.body.stops[299];
    const delivered = await tenant.call(driver, 'POST', `/v1/field/routes/${routeId}/stops/${stop.id}/deliver`, { body: { evidence: [{ kind: 'photo', reference: 'photos/300.jpg' }] } });
    expect(delivered.status, delivered.text).toBe(200);
    expect(delivered.body).toMatchObject({ state: 'delivered', plannedArrivalAt: plannedAt(299) });
    expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[299].id}`)).body.state).toBe('delivered');

    // Stops with full evidence make the partition more than one 1 MB page: the route still reads whole.
    const evidence = Array.from({ length: 20 }, (_, i) => ({ kind: 'note', reference: `${i}`.padEnd(500, 'x') }));
    for (const s of read.body.stops.slice(0, 110)) {
      await table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.stop(tenant.id, routeId, s.id), UpdateExpression: 'SET evidence = :e', ExpressionAttributeValues: { ':e': evidence } }));
    }
    const firstPage = await table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': opsKeys.routePartition(tenant.id, routeId) } }));
    expect(firstPage.LastEvaluatedKey).toBeDefined();
    const whole = await tenant.call(operator, 'GET', `/v1/field/routes/${routeId}`);
    expect(whole.body.stops.map((s: any) => s.id)).toEqual(read.body.stops.map((s: any) => s.id));
    expect(whole.body.stops[299].state).toBe('delivered');

    // Cancelled: its 299 open stops removed and their orders pending again; the delivered one stays.
    const cancelled = await tenant.call(operator, 'POST', `/v1/field/routes/${routeId}/cancel`, { body: { version: whole.body.version } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.stops.filter((s: any) => s.state === 'removed')).toHaveLength(299);
    const after = await tenant.call(operator, 'GET', `/v1/field/routes/${routeId}`);
    expect(after.body).toMatchObject({ state: 'cancelled' });
    expect(after.body.stops.map((s: any) => s.state)).toEqual([...Array(299).fill('removed'), 'delivered']);
    const listed = [];
    for (let page = await tenant.call(operator, 'GET', '/v1/distribution/orders?limit=100'); ; page = await tenant.call(operator, 'GET', `/v1/distribution/orders?limit=100&after=${page.body.nextCursor}`)) {
      listed.push(...page.body.items);
      if (!page.body.nextCursor) break;
    }
    const byId = new Map(listed.map((o: any) => [o.id, o]));
    expect(orders.slice(0, 299).every((o) => byId.get(o.id).state === 'pending' && byId.get(o.id).routeId === null)).toBe(true);
    expect(byId.get(orders[299].id).state).toBe('delivered');
    await expect.poll(() => collector.events.filter((e) => e.type === 'field.route.cancelled' && e.data.routeId === routeId).length).toBe(1);
    const back = await waitForView(stack(), tokenOf(orders[250]), (v) => v.state === 'pending' && v.stopsBefore === null);
    expect(back.eta).toBeNull();
  }, 10 * WAIT_LIMIT_MS);

  // A length over a schema's limit is 400 validation_failed here, as every other limit of a body (decisions 3).
  it('refuses a plan route of 301 orders, naming the field', async () => {
    const response = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: SERVICE_DATE, routes: [{ vehicleRouteId: 'V1', orderIds: Array.from({ length: 301 }, () => randomUUID()) }] } });
    expect(response.status, response.text).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'body.routes.0.orderIds', message: 'at most 300 orders per route' })]);
  });
});
