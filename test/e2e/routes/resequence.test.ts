import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { legSeconds } from '../../../shared/planning/travel.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, eventCollector, orderBody, plate, tokenOf, waitForView } from '../operations/support.ts';
import { approvedPlan, assignBody, createOrders, upcomingServiceDate } from './support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { collector: collector.consumer } });

/** A day gone by: every window of it has closed. */
const PAST_DAY = '2026-11-23';
const UNIT = 0.01; // degrees of latitude, about 1.1 km
const BASE = { latitude: -33.45, longitude: -70.65 };
const north = (units: number, eastDegrees = 0) => ({ latitude: BASE.latitude + units * UNIT, longitude: BASE.longitude + eastDegrees });

let tenant: TestTenant;
let operator: TestMember;
let driver: TestMember;
let otherDriver: TestMember;

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  [operator, driver, otherDriver] = await Promise.all([tenant.member('operator'), tenant.member('driver'), tenant.member('driver')]);
}, 60_000);

interface Place {
  at: { latitude: number; longitude: number };
  timeWindows?: { from: string; to: string }[];
}

/** Orders at these places (with their windows), one approved plan routing them in this order, assigned to the driver. */
const route = async (places: Place[], serviceDate = PAST_DAY) => {
  const orders = [];
  for (const [i, place] of places.entries()) {
    const body = { ...orderBody(`RSQ-${randomUUID().slice(0, 8)}-${i}`, place.at.latitude, place.at.longitude, serviceDate), timeWindows: place.timeWindows ?? [] };
    orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body })));
  }
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }] } }));
  created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  const assigned = created(
    await tenant.call(operator, 'POST', '/v1/field/routes', {
      body: { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate, depotName: 'Bodega Quilicura', vehicle: { plate: plate(), label: 'Camión 3/4' } },
    }),
  );
  return { orders, route: assigned };
};

const start = async (routeId: string) => created(await tenant.call(driver, 'POST', `/v1/field/routes/${routeId}/start`), 200);
const resequence = (routeId: string, body: Record<string, unknown> = {}, member = driver, idempotencyKey?: string) =>
  tenant.call(member, 'POST', `/v1/field/routes/${routeId}/resequence`, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });
/** The order ids of the route's stops in sequence. */
const orderIdsOf = (r: { stops: { orderId: string; sequence: number }[] }) => [...r.stops].sort((a, b) => a.sequence - b.sequence).map((s) => s.orderId);
const updatedEvents = (routeId: string) => collector.events.filter((e) => e.type === 'field.route.updated' && e.data.routeId === routeId);

// Five stops north of BASE at 3, 5, 2 and 4 units, and L off the line east of 4.5 whose window
// (09:00-10:00 of a past day) has closed: it can only be late.
const LATE = { at: north(4.5, 0.03), timeWindows: [{ from: '09:00', to: '10:00' }] };
const linePlaces: Place[] = [{ at: north(3) }, { at: north(5) }, LATE, { at: north(2) }, { at: north(4) }];

describe('POST /v1/field/routes/{id}/resequence (decisions 17)', () => {
  it('re-orders the open stops from the last closed stop, then from the last position, then from `from`; closed stops keep their place, late ones come last', async () => {
    const { orders, route: assigned } = await route(linePlaces);
    const [at3, at5, late, at2, at4] = orders.map((o) => o.id);
    const started = await start(assigned.id);
    const stopAt5 = started.stops.find((s: any) => s.orderId === at5);
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${assigned.id}/stops/${stopAt5.id}/deliver`, { body: {} }), 200);

    // No position yet: from the stop delivered last (at 5), down the line, then the late one.
    const fromClosed = created(await resequence(assigned.id), 200);
    expect(orderIdsOf(fromClosed)).toEqual([at4, at5, at3, at2, late]);
    expect(fromClosed.version).toBe(started.version + 1);
    const bySequence = [...fromClosed.stops].sort((a: any, b: any) => a.sequence - b.sequence);
    expect(bySequence.map((s: any) => s.sequence)).toEqual([1, 2, 3, 4, 5]);
    // The delivered stop kept its sequence (2) and outcome.
    expect(bySequence[1]).toMatchObject({ orderId: at5, state: 'delivered', sequence: 2, late: false });
    expect(bySequence.map((s: any) => s.late)).toEqual([false, false, false, false, true]);
    // Planned arrivals recomputed: leg by leg at the tenant's 25 km/h, 5 minutes at each stop.
    const [s4, , s3, s2, sLate] = bySequence;
    const gap = (a: any, b: any) => (Date.parse(b.plannedArrivalAt) - Date.parse(a.plannedArrivalAt)) / 1000;
    expect(gap(s4, s3)).toBe(300 + legSeconds(north(4), north(3), 25));
    expect(gap(s3, s2)).toBe(300 + legSeconds(north(3), north(2), 25));
    expect(gap(s2, sLate)).toBe(300 + legSeconds(north(2), LATE.at, 25));
    expect(s4.plannedArrivalAt).toMatch(/-03:00$/);

    // The read shows the same; the event names every stop in sequence, nothing added or removed.
    const read = created(await tenant.call(operator, 'GET', `/v1/field/routes/${assigned.id}`), 200);
    expect(read.stops).toEqual(fromClosed.stops);
    await expect.poll(() => updatedEvents(assigned.id).length).toBe(1);
    expect(updatedEvents(assigned.id)[0].data).toEqual({
      routeId: assigned.id,
      serviceDate: PAST_DAY,
      version: fromClosed.version,
      stopCount: 5,
      orderIds: [at4, at5, at3, at2, late],
      addedOrderIds: [],
      removedOrderIds: [],
    });
    // The tracking view follows: the stop at 2 has two open stops before it now.
    await waitForView(stack(), tokenOf(orders[3]), (v) => v.stopsBefore === 2);

    // With a position: from there (south of the line), up the line.
    created(await tenant.call(driver, 'POST', `/v1/field/routes/${assigned.id}/positions`, { body: { ...north(0), recordedAt: new Date().toISOString() } }), 202);
    const fromPosition = created(await resequence(assigned.id), 200);
    expect(orderIdsOf(fromPosition)).toEqual([at2, at5, at3, at4, late]);
    await waitForView(stack(), tokenOf(orders[3]), (v) => v.stopsBefore === 0);
    // `from` wins over the position: from beyond the top of the line, down it.
    const fromBody = created(await resequence(assigned.id, { from: north(6) }, operator), 200);
    expect(orderIdsOf(fromBody)).toEqual([at4, at5, at3, at2, late]);
    expect(fromBody.version).toBe(started.version + 3);
    await waitForView(stack(), tokenOf(orders[3]), (v) => v.stopsBefore === 2);
  }, 120_000);

  it('keeps the windows that can still be kept before the shorter order', async () => {
    const day = upcomingServiceDate();
    // Planned far stop first; the near one's window (09:00-09:30) comes before the far one's (14:00-15:00).
    const { orders, route: assigned } = await route(
      [
        { at: north(2), timeWindows: [{ from: '14:00', to: '15:00' }] },
        { at: north(1) },
        { at: north(3), timeWindows: [{ from: '09:00', to: '09:30' }] },
      ],
      day,
    );
    await start(assigned.id);
    const answer = created(await resequence(assigned.id, { from: north(0) }), 200);
    const order = orderIdsOf(answer);
    expect(order.indexOf(orders[2].id)).toBeLessThan(order.indexOf(orders[0].id));
    expect(order.indexOf(orders[1].id)).toBeLessThan(order.indexOf(orders[0].id));
    expect(answer.stops.every((s: any) => s.late === false)).toBe(true);
    // Served at its window's opening on the service day: it arrives before and waits.
    const early = answer.stops.find((s: any) => s.orderId === orders[2].id);
    expect(Date.parse(early.plannedArrivalAt)).toBeLessThanOrEqual(Date.parse(`${day}T09:30:00-03:00`));
  }, 60_000);

  it('is one change for one idempotency key, and the same order for the same stops and start', async () => {
    const { route: assigned } = await route(linePlaces);
    const started = await start(assigned.id);
    const key = randomUUID();
    const [first, again] = [await resequence(assigned.id, { from: north(0) }, driver, key), await resequence(assigned.id, { from: north(0) }, driver, key)];
    expect(first.status, first.text).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const read = created(await tenant.call(operator, 'GET', `/v1/field/routes/${assigned.id}`), 200);
    expect(read.version).toBe(started.version + 1);
    // Another key: another change, the same order (the late stop's window closed whatever the minute).
    const other = created(await resequence(assigned.id, { from: north(0) }), 200);
    expect(other.version).toBe(started.version + 2);
    expect(orderIdsOf(other)).toEqual(orderIdsOf(first.body));
    await expect.poll(() => updatedEvents(assigned.id).length).toBe(2);
  }, 60_000);

  it('answers 409 on a route not started, 403 to another driver, and 400 naming each bad field, changing nothing', async () => {
    const { route: assigned } = await route(linePlaces.slice(0, 2));
    const notStarted = await resequence(assigned.id);
    expect(notStarted.status).toBe(409);
    expect(notStarted.body.code).toBe('invalid_state');
    await start(assigned.id);
    const stranger = await resequence(assigned.id, {}, otherDriver);
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe('not_assigned');
    const bad = await resequence(assigned.id, { from: { latitude: 91, longitude: 'west' }, speed: 3 });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    const paths = bad.body.errors.map((e: any) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['body.from.latitude', 'body.from.longitude', 'body.speed']));
    const missing = await resequence(assigned.id, { from: { latitude: -33.4 } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: any) => e.path)).toContain('body.from.longitude');
    const read = created(await tenant.call(operator, 'GET', `/v1/field/routes/${assigned.id}`), 200);
    expect(read.version).toBe(2);
    expect(updatedEvents(assigned.id)).toHaveLength(0);
  }, 60_000);

  it('leaves a consistent route when stops are delivered and the route re-ordered at the same moment', async () => {
    const { route: assigned } = await route(linePlaces);
    const started = await start(assigned.id);
    const pending = [...started.stops].sort((a: any, b: any) => a.sequence - b.sequence);
    for (const stop of pending.slice(0, 3)) {
      const [delivered, reordered, again] = await Promise.all([
        tenant.call(driver, 'POST', `/v1/field/routes/${assigned.id}/stops/${stop.id}/deliver`, { body: {} }),
        resequence(assigned.id, { from: north(0) }),
        resequence(assigned.id, { from: north(6) }, operator),
      ]);
      expect(delivered.status, delivered.text).toBe(200);
      expect(reordered.status, reordered.text).toBe(200);
      expect(again.status, again.text).toBe(200);
    }
    const read = created(await tenant.call(operator, 'GET', `/v1/field/routes/${assigned.id}`), 200);
    expect(read.version).toBe(started.version + 6);
    expect(read.stops.map((s: any) => s.sequence).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(read.stops.filter((s: any) => s.state === 'delivered').map((s: any) => s.id).sort()).toEqual(pending.slice(0, 3).map((s: any) => s.id).sort());
    // The next resequence puts the open stops after... wherever they go, the delivered ones stay put.
    const closedPlaces = read.stops.filter((s: any) => s.state === 'delivered').map((s: any) => [s.id, s.sequence]);
    const after = created(await resequence(assigned.id, { from: north(0) }), 200);
    expect(after.stops.filter((s: any) => s.state === 'delivered').map((s: any) => [s.id, s.sequence])).toEqual(expect.arrayContaining(closedPlaces));
    expect(after.stops.map((s: any) => s.sequence).sort()).toEqual([1, 2, 3, 4, 5]);
  }, 90_000);

  it('re-orders a route of 300 stops in one change, and a stop delivered after it keeps its new place', async () => {
    const orders = await createOrders(tenant, operator, 300, 'RSQ300', PAST_DAY);
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }], undefined, PAST_DAY);
    const assigned = created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: { ...assignBody(plan.id, driver), serviceDate: PAST_DAY } }));
    const started = await start(assigned.id);
    const answer = created(await resequence(assigned.id, { from: north(-10) }), 200);
    expect(answer.stops).toHaveLength(300);
    expect(answer.stops.map((s: any) => s.sequence)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(new Set(answer.stops.map((s: any) => s.orderId))).toEqual(new Set(orders.map((o) => o.id)));
    // Planned arrivals follow the new sequence.
    const arrivals = answer.stops.map((s: any) => Date.parse(s.plannedArrivalAt));
    expect(arrivals).toEqual([...arrivals].sort((a, b) => a - b));
    expect(orderIdsOf(answer)).not.toEqual(orders.map((o) => o.id));
    expect(answer.version).toBe(started.version + 1);

    const tenth = answer.stops[9];
    const delivered = created(await tenant.call(driver, 'POST', `/v1/field/routes/${assigned.id}/stops/${tenth.id}/deliver`, { body: {} }), 200);
    expect(delivered).toMatchObject({ sequence: 10, plannedArrivalAt: tenth.plannedArrivalAt, state: 'delivered' });
    const read = created(await tenant.call(driver, 'GET', `/v1/field/routes/${assigned.id}`), 200);
    expect(read.stops.map((s: any) => [s.id, s.sequence])).toEqual(answer.stops.map((s: any) => [s.id, s.sequence]));
    await expect.poll(() => updatedEvents(assigned.id).map((e) => e.data.stopCount)).toEqual([300]);
  }, 180_000);
});
