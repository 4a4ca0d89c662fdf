import { describe, expect, it } from 'vitest';
import { call, TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, eventCollector, orderBody, routeWithOrders, tokenOf, waitFor, waitForView } from './support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { 'test-events': collector.consumer } });
const two: [number, number][] = [
  [-33.44, -70.65],
  [-33.43, -70.64],
];

const eventsOf = (tenantId: string, type: string) => collector.events.filter((e) => e.tenantId === tenantId && e.type === type);

describe('the failed and cancelled paths', () => {
  it('a failed delivery reads failed and closed', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { orders, route } = await routeWithOrders(tenant, operator, driver, two);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const failed = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/fail`, {
      body: { reason: 'Dirección no encontrada', evidence: [{ kind: 'photo', reference: 'evidence/door.jpg' }] },
    });
    expect(failed.status, failed.text).toBe(200);
    const view = await waitForView(stack(), tokenOf(orders[0]), (v) => v.state === 'failed');
    expect(view).toMatchObject({ closedAt: failed.body.outcomeAt, eta: null, etaNote: null, driver: null, stopsBefore: null, refreshSeconds: 3600 });
    const event = await waitFor(() => eventsOf(tenant.id, 'field.stop.failed')[0]);
    expect(event.data).toEqual({ routeId: route.id, stopId: route.stops[0].id, orderId: orders[0].id, reference: orders[0].reference, outcomeAt: failed.body.outcomeAt, evidenceCount: 1 });
    // The other order is still on its way, now with nobody before it.
    expect((await waitForView(stack(), tokenOf(orders[1]), (v) => v.stopsBefore === 0)).state).toBe('arriving');
  });

  it('a pending order cancelled reads failed with a note, and emits distribution.order.cancelled', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('CAN-1') }));
    await waitForView(stack(), tokenOf(order), (v) => v.state === 'pending');
    const cancelled = await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: 1 } });
    expect(cancelled.body).toMatchObject({ state: 'cancelled', version: 2 });
    const view = await waitForView(stack(), tokenOf(order), (v) => v.state === 'failed');
    expect(view.etaNote).toMatch(/cancelado/);
    expect(view.closedAt).toBe(cancelled.body.cancelledAt);
    const event = await waitFor(() => eventsOf(tenant.id, 'distribution.order.cancelled')[0]);
    expect(event.data).toEqual({ orderId: order.id, reference: 'CAN-1', state: 'cancelled' });
  });

  it('an order cancelled while on a route under way closes its stop: the driver can no longer deliver it', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { orders, route } = await routeWithOrders(tenant, operator, driver, two);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const current = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    expect(current).toMatchObject({ state: 'assigned', version: 2 });
    expect((await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { body: { version: 2 } })).status).toBe(200);
    const deliver = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: {} });
    expect(deliver.status).toBe(409);
    expect(deliver.body.code).toBe('invalid_state');
    expect((await waitForView(stack(), tokenOf(orders[0]), (v) => v.state === 'failed')).etaNote).toMatch(/cancelado/);
    expect((await waitForView(stack(), tokenOf(orders[1]), (v) => v.state === 'arriving')).stopsBefore).toBe(0);
    const read = (await tenant.call(driver, 'GET', `/v1/field/routes/${route.id}`)).body;
    expect(read.stops.map((s: { state: string }) => s.state)).toEqual(['cancelled', 'pending']);
  });

  it('a cancelled route gives its open orders back to pending; their links read pending again', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { orders, route } = await routeWithOrders(tenant, operator, driver, two);
    const started = (await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).body;
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: {} });
    await waitForView(stack(), tokenOf(orders[1]), (v) => v.state === 'arriving');
    const cancelled = await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: started.version } });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.stops.map((s: { state: string }) => s.state)).toEqual(['delivered', 'removed']);
    const back = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[1].id}`)).body;
    expect(back).toMatchObject({ state: 'pending', routeId: null, stopId: null });
    const view = await waitForView(stack(), tokenOf(orders[1]), (v) => v.state === 'pending');
    expect(view).toMatchObject({ stopsBefore: null, driver: null, approximatePosition: null });
    expect((await call(stack(), 'GET', `/v1/track/${tokenOf(orders[0])}`)).body.state).toBe('delivered');
    const event = await waitFor(() => eventsOf(tenant.id, 'field.route.cancelled')[0]);
    expect(event.data).toEqual({ routeId: route.id, serviceDate: '2026-11-23' });
    // The freed order can go on another plan.
    const replan = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [orders[1].id] }] } });
    expect(replan.status, replan.text).toBe(201);
    expect(replan.body.routes[0].vehicleRouteId).toBe('R1');
  });
});
