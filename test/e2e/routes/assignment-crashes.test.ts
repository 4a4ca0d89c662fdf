import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { eventCollector } from '../operations/support.ts';
import { approvedPlan, assignBody, createOrders, storedClaim, storedOrder } from './support.ts';
import { nthTransactionNaming, throughGate } from './table-gate.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { collector: collector.consumer } });

/** 99 orders: three chunks of the assignment (49, 49, 1), so four write boundaries and the final write. */
const STOPS = 99;

const assignedEvents = (routeId: string) => collector.events.filter((e) => e.type === 'field.route.assigned' && e.data.routeId === routeId);

const world = async () => {
  const tenant = await TestTenant.create(stack());
  const operator = await tenant.member('operator');
  const driver = await tenant.member('driver');
  return { tenant, operator, driver };
};

/** What every reader shows of a half-done assignment: nothing of it. */
const expectNothingVisible = async (tenant: TestTenant, operator: TestMember, driver: TestMember, routeId: string, orders: any[]) => {
  expect((await tenant.call(operator, 'GET', `/v1/field/routes/${routeId}`)).status).toBe(404);
  expect((await tenant.call(driver, 'GET', `/v1/field/routes/${routeId}`)).status).toBe(404);
  const first = await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`);
  expect(first.body).toMatchObject({ state: 'pending', routeId: null, stopId: null, version: 1 });
  const listed = await tenant.call(operator, 'GET', '/v1/distribution/orders?limit=100');
  expect(listed.body.items.filter((o: any) => o.state !== 'pending')).toEqual([]);
  expect(assignedEvents(routeId)).toEqual([]);
};

describe('a route assignment that dies between its writes', () => {
  // Transaction 1 is the first chunk (the claim is a write of its own before it), 4 the final write.
  for (const [crashAt, where] of [
    [1, 'after the claim, before the first chunk'],
    [2, 'after the first chunk'],
    [3, 'after the second chunk'],
    [4, 'after the last chunk, at the final write'],
  ] as const) {
    it(`crashed ${where}: shows nothing of it, and its retry finishes it with every stop once and one event`, async () => {
      const { tenant, operator, driver } = await world();
      const orders = await createOrders(tenant, operator, STOPS, `CRASH${crashAt}`);
      const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
      const body = assignBody(plan.id, driver);
      const key = randomUUID();

      const crashed = await throughGate(stack().dynamoEndpoint, async (gate) => {
        gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`#PLAN#${plan.id}`, crashAt), action: 'fail' });
        const answer = await tenant.call(operator, 'POST', '/v1/field/routes', { body, idempotencyKey: key });
        expect(gate.rules).toEqual([]);
        return answer;
      });
      expect(crashed.status, crashed.text).toBeGreaterThanOrEqual(500);
      const claim = await storedClaim(tenant.id, plan.id);
      expect(claim).toMatchObject({ state: 'assigning' });
      const routeId = claim!.routeId as string;
      // The chunks written so far moved their orders, held for this route.
      const movedFirst = await storedOrder(tenant.id, orders[0].id);
      if (crashAt >= 2) expect(movedFirst).toMatchObject({ state: 'assigned', routeId, assigning: { routeId, version: 1 } });
      else expect(movedFirst).toMatchObject({ state: 'pending', version: 1 });
      await expectNothingVisible(tenant, operator, driver, routeId, orders);

      // While it may still be running, another assignment of the planned route or a cancel of its order waits.
      const other = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) });
      expect(other.status, other.text).toBe(409);
      expect(other.body.code).toBe('assignment_in_progress');
      if (crashAt >= 2) {
        const cancel = await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { body: { version: 1 } });
        expect(cancel.status, cancel.text).toBe(409);
        expect(cancel.body.code).toBe('assignment_in_progress');
      }

      const retried = await tenant.call(operator, 'POST', '/v1/field/routes', { body, idempotencyKey: key });
      expect(retried.status, retried.text).toBe(201);
      expect(retried.body.id).toBe(routeId);
      expect(retried.body.stops.map((s: any) => s.orderId)).toEqual(orders.map((o) => o.id));
      expect(retried.body.stops.map((s: any) => s.sequence)).toEqual(orders.map((_, i) => i + 1));
      expect(retried.body.stops.every((s: any) => s.plannedArrivalAt === null)).toBe(true);

      const route = await tenant.call(driver, 'GET', `/v1/field/routes/${routeId}`);
      expect(route.body).toMatchObject({ state: 'assigned', workerId: driver.id });
      expect(route.body.stops).toEqual(retried.body.stops);
      for (const [i, order] of orders.entries()) {
        const stored = await storedOrder(tenant.id, order.id);
        expect(stored).toMatchObject({ state: 'assigned', routeId, stopId: route.body.stops[i].id, version: 2 });
        // The final write's follow-up took the holds off: readers need no look-up any more.
        expect(stored.assigning).toBeUndefined();
      }
      expect((await storedClaim(tenant.id, plan.id))).toMatchObject({ state: 'assigned', routeId });
      // One event, after the stream delivers it; a replay of the key answers the same route.
      await expect.poll(() => assignedEvents(routeId).length).toBe(1);
      expect(assignedEvents(routeId)[0].data).toMatchObject({ stopCount: STOPS, orderIds: orders.map((o) => o.id) });
      const replay = await tenant.call(operator, 'POST', '/v1/field/routes', { body, idempotencyKey: key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(routeId);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(assignedEvents(routeId)).toHaveLength(1);
    }, 120_000);
  }

  it('crashed after the final write, before its holds were taken off: the orders read assigned all the same', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 3, 'AFTERFLIP');
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
    const assigned = await throughGate(stack().dynamoEndpoint, async (gate) => {
      gate.rules.push({ operation: 'UpdateItem', match: (body) => JSON.stringify(body).includes('REMOVE assigning'), action: 'fail' });
      return tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) });
    });
    expect(assigned.status, assigned.text).toBe(201);
    const holds = await Promise.all(orders.map(async (o) => (await storedOrder(tenant.id, o.id)).assigning));
    expect(holds.filter(Boolean).length).toBe(1);
    for (const [i, order] of orders.entries()) {
      expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${order.id}`)).body).toMatchObject({ state: 'assigned', routeId: assigned.body.id, stopId: assigned.body.stops[i].id, version: 2 });
    }
  });
});

describe('two assignments after the same orders', () => {
  it('the one that moves an order first wins it; the other rolls back the chunk it had written and answers 409', async () => {
    const { tenant, operator, driver } = await world();
    const shared = await createOrders(tenant, operator, 49, 'SHARED');
    const own = await createOrders(tenant, operator, 49, 'OWN');
    const first = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: shared.map((o) => o.id) }]);
    // Its first chunk is its own orders, its second the shared ones.
    const second = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: [...own, ...shared].map((o) => o.id) }]);

    const lost = await throughGate(stack().dynamoEndpoint, async (gate) => {
      let reached!: () => void;
      let open!: () => void;
      const atGate = new Promise<void>((resolve) => (reached = resolve));
      gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`#PLAN#${second.id}`, 2), action: 'hold', reached, opened: new Promise<void>((resolve) => (open = resolve)) });
      const pending = tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(second.id, driver) });
      await atGate;
      // The second assignment has moved its own 49 orders and waits to move the shared ones.
      expect((await storedOrder(tenant.id, own[0].id)).state).toBe('assigned');
      const won = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(first.id, driver) });
      expect(won.status, won.text).toBe(201);
      open();
      return { answer: await pending, winner: won.body };
    });
    expect(lost.answer.status, lost.answer.text).toBe(409);
    expect(lost.answer.body.code).toBe('invalid_state');
    for (const order of own) {
      const stored = await storedOrder(tenant.id, order.id);
      expect(stored).toMatchObject({ state: 'pending', version: 1 });
      expect(stored.routeId).toBeUndefined();
      expect(stored.assigning).toBeUndefined();
    }
    for (const order of shared) expect(await storedOrder(tenant.id, order.id)).toMatchObject({ state: 'assigned', routeId: lost.winner.id, version: 2 });
    expect(await storedClaim(tenant.id, second.id)).toMatchObject({ state: 'released' });
    // The loser's route never existed for anyone.
    const loserRoute = (await storedClaim(tenant.id, second.id))!.routeId as string;
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${loserRoute}`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(assignedEvents(loserRoute)).toEqual([]);
  }, 120_000);

  it('assigned at the same moment from two plans: one wins every order, never both', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 60, 'RACE');
    const plans = await Promise.all([0, 1].map(() => approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }])));
    const answers = await Promise.all(plans.map((plan) => tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) })));
    const winners = answers.filter((a) => a.status === 201);
    expect(winners.length, answers.map((a) => a.text).join('\n')).toBeLessThanOrEqual(1);
    for (const answer of answers.filter((a) => a.status !== 201)) expect(answer.status, answer.text).toBe(409);
    const states = await Promise.all(orders.map((o) => storedOrder(tenant.id, o.id)));
    if (winners.length === 1) expect(states.every((s) => s.state === 'assigned' && s.routeId === winners[0].body.id && !s.assigning)).toBe(true);
    else expect(states.every((s) => s.state === 'pending' && !s.assigning)).toBe(true);
  }, 120_000);

  it('an order held by an assignment that died is released by the next assignment that wants it, once its lease ran out', async () => {
    const { tenant, operator, driver } = await world();
    const previous = process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS;
    process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS = '1';
    try {
      const orders = await createOrders(tenant, operator, 60, 'DEAD');
      const dead = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
      const next = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
      const crashed = await throughGate(stack().dynamoEndpoint, async (gate) => {
        gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`#PLAN#${dead.id}`, 2), action: 'fail' });
        return tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(dead.id, driver) });
      });
      expect(crashed.status).toBeGreaterThanOrEqual(500);
      expect((await storedOrder(tenant.id, orders[0].id)).assigning).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const taken = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(next.id, driver) });
      expect(taken.status, taken.text).toBe(201);
      expect(await storedClaim(tenant.id, dead.id)).toMatchObject({ state: 'released' });
      for (const order of orders) expect(await storedOrder(tenant.id, order.id)).toMatchObject({ state: 'assigned', routeId: taken.body.id, version: 2 });
      // The dead assignment's own retry now finds its orders taken.
      const late = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(dead.id, driver) });
      expect(late.status, late.text).toBe(409);
    } finally {
      if (previous === undefined) delete process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS;
      else process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS = previous;
    }
  }, 120_000);

  it('cancelling an order held by an assignment that died releases that assignment first, then cancels', async () => {
    const { tenant, operator, driver } = await world();
    const previous = process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS;
    process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS = '1';
    try {
      const orders = await createOrders(tenant, operator, 60, 'DEADCANCEL');
      const dead = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
      const crashed = await throughGate(stack().dynamoEndpoint, async (gate) => {
        gate.rules.push({ operation: 'TransactWriteItems', match: nthTransactionNaming(`#PLAN#${dead.id}`, 2), action: 'fail' });
        return tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(dead.id, driver) });
      });
      expect(crashed.status).toBeGreaterThanOrEqual(500);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const cancelled = await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { body: { version: 1 } });
      expect(cancelled.status, cancelled.text).toBe(200);
      expect(cancelled.body).toMatchObject({ state: 'cancelled', routeId: null, version: 2 });
      expect(await storedClaim(tenant.id, dead.id)).toMatchObject({ state: 'released' });
      for (const order of orders.slice(1)) expect(await storedOrder(tenant.id, order.id)).toMatchObject({ state: 'pending', version: 1 });
      const retried = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(dead.id, driver) });
      expect(retried.status, retried.text).toBe(409);
      expect(retried.text).toContain(orders[0].id);
    } finally {
      if (previous === undefined) delete process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS;
      else process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS = previous;
    }
  }, 120_000);

  it('a route cancel that dies after the route turned cancelled: its orders read pending and its stops removed, and they can be planned and cancelled again', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 60, 'CANCELDIES');
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
    const route = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) });
    expect(route.status, route.text).toBe(201);
    const cancelled = await throughGate(stack().dynamoEndpoint, async (gate) => {
      // Every write-back after the route's own transaction fails: as if the function died there.
      for (let i = 0; i < 200; i++) {
        gate.rules.push({ operation: 'PutItem', match: (body) => JSON.stringify(body).includes('releasing = :route'), action: 'fail' });
        gate.rules.push({ operation: 'UpdateItem', match: (body) => JSON.stringify(body).includes(':removed') || JSON.stringify(body).includes('REMOVE releasing'), action: 'fail' });
      }
      return tenant.call(operator, 'POST', `/v1/field/routes/${route.body.id}/cancel`, { body: { version: 1 } });
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await storedOrder(tenant.id, orders[0].id)).toMatchObject({ state: 'assigned', releasing: route.body.id });
    const read = await tenant.call(driver, 'GET', `/v1/field/routes/${route.body.id}`);
    expect(read.body.stops.every((s: any) => s.state === 'removed' && s.version === 2)).toBe(true);
    expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body).toMatchObject({ state: 'pending', routeId: null, stopId: null, version: 3 });
    const cancelOne = await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[59].id}/cancel`, { body: { version: 3 } });
    expect(cancelOne.status, cancelOne.text).toBe(200);
    expect(cancelOne.body).toMatchObject({ state: 'cancelled', version: 4 });
    const again = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.slice(0, 59).map((o) => o.id) }]);
    const reassigned = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(again.id, driver) });
    expect(reassigned.status, reassigned.text).toBe(201);
    for (const order of orders.slice(0, 59)) expect(await storedOrder(tenant.id, order.id)).toMatchObject({ state: 'assigned', routeId: reassigned.body.id, version: 4 });
  }, 120_000);
});
