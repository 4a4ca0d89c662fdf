import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, eventCollector, waitForView } from '../operations/support.ts';
import { createOrders, routePartitionItems } from '../routes/support.ts';
import { nthTransactionNaming, throughGate } from '../routes/table-gate.ts';
import { unplannedPendingOrderIds } from '../../../functions/routing/previews/day-orders.ts';
import { assignedRoute, planOverRoutes } from './apply-support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { collector: collector.consumer } });

const world = async () => {
  const tenant = await TestTenant.create(stack());
  return { tenant, operator: await tenant.member('operator'), driver: await tenant.member('driver'), viewer: await tenant.member('viewer') };
};

const apply = (tenant: TestTenant, member: any, planId: string, version: number, idempotencyKey: string = randomUUID()) =>
  tenant.call(member, 'POST', `/v1/routing/plans/${planId}/apply`, { body: { version }, idempotencyKey });

const orderOf = async (tenant: TestTenant, member: any, id: string) => (await tenant.call(member, 'GET', `/v1/distribution/orders/${id}`)).body;
const routeOf = async (tenant: TestTenant, member: any, id: string) => (await tenant.call(member, 'GET', `/v1/field/routes/${id}`)).body;
const updatedEvents = (routeId: string) => collector.events.filter((e) => e.type === 'field.route.updated' && e.data.routeId === routeId);

describe('POST /v1/routing/plans/{id}/apply (decisions 17)', () => {
  it('changes the route in place: kept stops keep their ids, new orders get stops, removed ones go back to pending, one event', async () => {
    const { tenant, operator, driver, viewer } = await world();
    const [a, b, c, d, e] = await createOrders(tenant, operator, 5, 'APPLY');
    const route = await assignedRoute(tenant, operator, driver, [a.id, b.id, c.id]);
    const plan = await planOverRoutes(tenant, operator, [{ route, orderIds: [b.id, d.id, a.id, e.id] }]);
    expect(plan.routes).toEqual([{ vehicleRouteId: 'V1', routeId: route.id, orderIds: [b.id, d.id, a.id, e.id] }]);

    const key = randomUUID();
    const answer = await apply(tenant, operator, plan.id, plan.version, key);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ planId: plan.id, routes: [{ routeId: route.id, version: 2, addedOrderIds: [d.id, e.id], removedOrderIds: [c.id] }], skipped: [] });

    const after = await routeOf(tenant, driver, route.id);
    expect(after).toMatchObject({ state: 'assigned', version: 2 });
    expect(after.stops.map((s: any) => [s.sequence, s.orderId])).toEqual([[1, b.id], [2, d.id], [3, a.id], [4, e.id]]);
    const stopIdOf = (stops: any[], orderId: string) => stops.find((s) => s.orderId === orderId).id;
    expect(stopIdOf(after.stops, a.id)).toBe(stopIdOf(route.stops, a.id));
    expect(stopIdOf(after.stops, b.id)).toBe(stopIdOf(route.stops, b.id));
    expect(new Set(after.stops.map((s: any) => s.id)).size).toBe(4);
    // Planned arrivals from the plan (the preview's, ten minutes apart from 08:05).
    expect(after.stops.map((s: any) => s.plannedArrivalAt)).toEqual(['2026-11-23T08:05:00-03:00', '2026-11-23T08:15:00-03:00', '2026-11-23T08:25:00-03:00', '2026-11-23T08:35:00-03:00']);

    expect(await orderOf(tenant, operator, c.id)).toMatchObject({ state: 'pending', routeId: null, stopId: null });
    // No plan holds it any more: the first plan's route was assigned, the second plan's applied.
    expect(await unplannedPendingOrderIds(tenant.id, route.serviceDate)).toEqual([c.id]);
    expect(await orderOf(tenant, operator, d.id)).toMatchObject({ state: 'assigned', routeId: route.id, stopId: stopIdOf(after.stops, d.id) });
    expect((await tenant.call(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body).toMatchObject({ appliedAt: expect.any(String), version: plan.version + 1 });
    // Settled: no staged value or removed stop is left in the route's partition.
    const items = await routePartitionItems(tenant.id, route.id);
    expect(items.filter((i) => i.entity === 'stop')).toHaveLength(4);
    expect(items.some((i) => i.next !== undefined || i.stagedFor !== undefined)).toBe(false);

    // The same key is the same change; another key finds it applied.
    const again = await apply(tenant, operator, plan.id, plan.version, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(answer.body);
    const twice = await apply(tenant, operator, plan.id, plan.version + 1);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'plan_applied' });
    expect((await routeOf(tenant, operator, route.id)).version).toBe(2);

    await expect.poll(() => updatedEvents(route.id).length).toBe(1);
    expect(updatedEvents(route.id)[0].data).toEqual({
      routeId: route.id,
      serviceDate: route.serviceDate,
      version: 2,
      stopCount: 4,
      orderIds: [b.id, d.id, a.id, e.id],
      addedOrderIds: [d.id, e.id],
      removedOrderIds: [c.id],
    });
    // Tracking follows: the removed order reads pending; the added one shows its place and planned window.
    const token = (order: { trackingUrl: string }) => order.trackingUrl.split('/t/')[1];
    await waitForView(stack(), token(c), (v) => v.state === 'pending' && v.stopsBefore === null);
    await waitForView(stack(), token(d), (v) => v.state === 'pending' && v.stopsBefore === 1);
    await waitForView(stack(), token(a), (v) => v.state === 'pending' && v.stopsBefore === 2);
    // A viewer may not change plans.
    expect((await apply(tenant, viewer, plan.id, plan.version + 1)).status).toBe(403);
  }, 120_000);

  it('a route left with no order is cancelled and its orders read pending; an order may move between two routes of the plan', async () => {
    const { tenant, operator, driver } = await world();
    const [a, b, c, d] = await createOrders(tenant, operator, 4, 'MOVE');
    const first = await assignedRoute(tenant, operator, driver, [a.id, b.id]);
    const second = await assignedRoute(tenant, operator, driver, [c.id, d.id]);
    // The first route takes c from the second; the second is left with nothing; d goes back to pending.
    const plan = await planOverRoutes(tenant, operator, [
      { route: first, orderIds: [a.id, c.id, b.id] },
      { route: second, orderIds: [] },
    ]);
    const answer = await apply(tenant, operator, plan.id, plan.version);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.routes).toEqual([
      { routeId: first.id, version: 2, addedOrderIds: [c.id], removedOrderIds: [] },
      { routeId: second.id, version: 2, addedOrderIds: [], removedOrderIds: [c.id, d.id] },
    ]);
    expect((await routeOf(tenant, operator, first.id)).stops.map((s: any) => s.orderId)).toEqual([a.id, c.id, b.id]);
    const emptied = await routeOf(tenant, operator, second.id);
    expect(emptied.state).toBe('cancelled');
    expect(emptied.stops.every((s: any) => s.state === 'removed')).toBe(true);
    expect(await orderOf(tenant, operator, c.id)).toMatchObject({ state: 'assigned', routeId: first.id });
    expect(await orderOf(tenant, operator, d.id)).toMatchObject({ state: 'pending', routeId: null });
    await expect.poll(() => collector.events.filter((e) => e.type === 'field.route.cancelled' && e.data.routeId === second.id).length).toBe(1);
  }, 60_000);

  it('a named route that started is 409 route_started naming it, and nothing changes', async () => {
    const { tenant, operator, driver } = await world();
    const [a, b, c] = await createOrders(tenant, operator, 3, 'STARTED');
    const route = await assignedRoute(tenant, operator, driver, [a.id, b.id]);
    const plan = await planOverRoutes(tenant, operator, [{ route, orderIds: [b.id, c.id] }]);
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`), 200);
    const refused = await apply(tenant, operator, plan.id, plan.version);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'route_started', routeIds: [route.id] });
    expect((await routeOf(tenant, operator, route.id)).stops.map((s: any) => s.orderId)).toEqual([a.id, b.id]);
    expect(await orderOf(tenant, operator, c.id)).toMatchObject({ state: 'pending' });
    expect((await tenant.call(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body.appliedAt).toBeNull();
  }, 60_000);

  it('two plans over one route change it once: the second is 409, in turn or at the same moment', async () => {
    const { tenant, operator, driver } = await world();
    const [a, b, c, d] = await createOrders(tenant, operator, 4, 'TWO');
    const route = await assignedRoute(tenant, operator, driver, [a.id, b.id]);
    const one = await planOverRoutes(tenant, operator, [{ route, orderIds: [a.id, b.id, c.id] }]);
    const two = await planOverRoutes(tenant, operator, [{ route, orderIds: [b.id, a.id, d.id] }]);
    expect((await apply(tenant, operator, one.id, one.version)).status).toBe(200);
    const second = await apply(tenant, operator, two.id, two.version);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'route_changed', routeIds: [route.id] });
    expect((await routeOf(tenant, operator, route.id)).stops.map((s: any) => s.orderId)).toEqual([a.id, b.id, c.id]);
    expect(await orderOf(tenant, operator, d.id)).toMatchObject({ state: 'pending' });

    const other = await assignedRoute(tenant, operator, driver, [d.id]);
    const [e, f] = await createOrders(tenant, operator, 2, 'RACE');
    const three = await planOverRoutes(tenant, operator, [{ route: other, orderIds: [d.id, e.id] }]);
    const four = await planOverRoutes(tenant, operator, [{ route: other, orderIds: [f.id, d.id] }]);
    const answers = await Promise.all([apply(tenant, operator, three.id, three.version), apply(tenant, operator, four.id, four.version)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const after = await routeOf(tenant, operator, other.id);
    expect(after.version).toBe(2);
    const won = answers[0].status === 200 ? [d.id, e.id] : [f.id, d.id];
    expect(after.stops.map((s: any) => s.orderId)).toEqual(won);
    const lost = answers[0].status === 200 ? f.id : e.id;
    expect(await orderOf(tenant, operator, lost)).toMatchObject({ state: 'pending', routeId: null });
    await expect.poll(() => updatedEvents(other.id).length).toBe(1);
  }, 60_000);

  it('one apply sent twice at once with one key changes the route once, and its retry answers the change', async () => {
    const { tenant, operator, driver } = await world();
    const [a, b, c] = await createOrders(tenant, operator, 3, 'KEY');
    const route = await assignedRoute(tenant, operator, driver, [a.id, b.id]);
    const plan = await planOverRoutes(tenant, operator, [{ route, orderIds: [c.id, b.id, a.id] }]);
    const key = randomUUID();
    const answers = await Promise.all([apply(tenant, operator, plan.id, plan.version, key), apply(tenant, operator, plan.id, plan.version, key)]);
    const expected = { planId: plan.id, routes: [{ routeId: route.id, version: 2, addedOrderIds: [c.id], removedOrderIds: [] }], skipped: [] };
    // Each twin either made the change or lost the route to the other and says so with a 409
    // (mostly idempotency_in_progress; docs/routing.md, "Twins of one apply", says when a loser gets another code).
    for (const r of answers) {
      if (r.status === 200) expect(r.body).toEqual(expected);
      else expect([r.status, ['idempotency_in_progress', 'route_changed', 'assignment_in_progress'].includes(r.body.code)], r.text).toEqual([409, true]);
    }
    // The retry with the key answers the change, made once.
    const retried = await apply(tenant, operator, plan.id, plan.version, key);
    expect([retried.status, retried.body], retried.text).toEqual([200, expected]);
    const after = await routeOf(tenant, operator, route.id);
    expect([after.version, after.stops.map((s: any) => s.orderId)]).toEqual([2, [c.id, b.id, a.id]]);
    expect(after.stops).toHaveLength(3);
    await expect.poll(() => updatedEvents(route.id).length).toBe(1);
  }, 120_000);

  it('a route that starts while its change is written is left as it was and named in skipped', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 60, 'SKIP');
    const route = await assignedRoute(tenant, operator, driver, orders.slice(0, 50).map((o) => o.id));
    // 50 kept in reverse and 10 added: two chunks before the final write.
    const target = [...orders.slice(0, 50).map((o) => o.id).reverse(), ...orders.slice(50).map((o) => o.id)];
    const plan = await planOverRoutes(tenant, operator, [{ route, orderIds: target }]);
    let reached!: () => void;
    const atChunk = new Promise<void>((resolve) => (reached = resolve));
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const answer = await throughGate(stack().dynamoEndpoint, async (gate) => {
      // Hold the apply at its second chunk, start the route meanwhile, then let it go on.
      gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`ROUTECHANGE#${route.id}`, 2), action: 'hold', reached, opened });
      const pending = apply(tenant, operator, plan.id, plan.version);
      await atChunk;
      const started = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
      open();
      expect(started.status, started.text).toBe(200);
      return pending;
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ planId: plan.id, routes: [], skipped: [route.id] });
    const after = await routeOf(tenant, driver, route.id);
    expect(after.state).toBe('started');
    expect(after.stops.map((s: any) => s.orderId)).toEqual(orders.slice(0, 50).map((o) => o.id));
    for (const order of orders.slice(50)) expect(await orderOf(tenant, operator, order.id)).toMatchObject({ state: 'pending', routeId: null, version: 1 });
    expect(updatedEvents(route.id)).toEqual([]);
  }, 120_000);

  it('a 300-stop route is changed whole: a change that dies midway shows nothing, and its retry finishes it once', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 350, 'LONG');
    const ids = orders.map((o) => o.id);
    const route = await assignedRoute(tenant, operator, driver, ids.slice(0, 300));
    // 250 kept, 50 removed, 50 added: 300 stops before and after, six chunks before the final write.
    const target = [...ids.slice(50, 300), ...ids.slice(300)];
    const plan = await planOverRoutes(tenant, operator, [{ route, orderIds: target }]);
    const key = randomUUID();
    const crashed = await throughGate(stack().dynamoEndpoint, async (gate) => {
      // The third transaction naming the route's lock: the third chunk (the final write is later).
      gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`ROUTECHANGE#${route.id}`, 3), action: 'fail' });
      return apply(tenant, operator, plan.id, plan.version, key);
    });
    expect(crashed.status).toBeGreaterThanOrEqual(500);
    const half = await routeOf(tenant, operator, route.id);
    expect(half.version).toBe(1);
    expect(half.stops.map((s: any) => s.orderId)).toEqual(ids.slice(0, 300));
    expect(await orderOf(tenant, operator, ids[349])).toMatchObject({ state: 'pending', routeId: null });
    expect(await orderOf(tenant, operator, ids[0])).toMatchObject({ state: 'assigned', routeId: route.id });
    // No event of a change that did not commit.
    expect(updatedEvents(route.id)).toEqual([]);

    const retried = await apply(tenant, operator, plan.id, plan.version, key);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.routes[0]).toMatchObject({ version: 2, addedOrderIds: ids.slice(300), removedOrderIds: ids.slice(0, 50) });
    const after = await routeOf(tenant, operator, route.id);
    expect(after.stops.map((s: any) => s.orderId)).toEqual(target);
    expect(after.stops.map((s: any) => s.sequence)).toEqual(target.map((_, i) => i + 1));
    expect(new Set(after.stops.map((s: any) => s.id)).size).toBe(300);
    expect(await orderOf(tenant, operator, ids[0])).toMatchObject({ state: 'pending', routeId: null });
    expect(await orderOf(tenant, operator, ids[349])).toMatchObject({ state: 'assigned', routeId: route.id });
    await expect.poll(() => updatedEvents(route.id).length).toBe(1);
  }, 240_000);

  it('bad input is a problem naming each field, and changes nothing', async () => {
    const { tenant, operator } = await world();
    const unknown = randomUUID();
    for (const [body, path] of [
      [{}, 'body.version'],
      [{ version: 'one' }, 'body.version'],
      [{ version: 1, routes: [] }, 'body.routes'],
    ] as const) {
      const response = await tenant.call(operator, 'POST', `/v1/routing/plans/${unknown}/apply`, { body, idempotencyKey: randomUUID() });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.body.errors.map((e: any) => e.path)).toContain(path);
    }
    expect((await apply(tenant, operator, unknown, 1)).status).toBe(404);
  });
});
