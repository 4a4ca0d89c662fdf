import { describe, expect, it } from 'vitest';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, orderBody, plate, routeWithOrders } from './support.ts';

const stack = useLocalStack();
const one: [number, number][] = [[-33.44, -70.65]];

describe('tenants and drivers', () => {
  it('answers 404 to every operation on another tenant’s orders, plans and routes', async () => {
    const owner = await TestTenant.create(stack());
    const stranger = await TestTenant.create(stack());
    const operator = await owner.member('operator');
    const driver = await owner.member('driver');
    const admin = await stranger.member('admin');
    const strangerDriver = await stranger.member('driver');
    const { orders, plan, route } = await routeWithOrders(owner, operator, driver, one);
    await owner.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const stop = route.stops[0].id;
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v1/distribution/orders/${orders[0].id}`],
      ['POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { version: 2 }],
      ['GET', `/v1/routing/plans/${plan.id}`],
      ['POST', `/v1/routing/plans/${plan.id}/approve`, { version: 2 }],
      ['POST', '/v1/field/routes', { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: strangerDriver.id, serviceDate: '2026-11-23', depotName: 'X', vehicle: { plate: plate(), label: 'X' } }],
      ['GET', `/v1/field/routes/${route.id}`],
      ['POST', `/v1/field/routes/${route.id}/start`],
      ['POST', `/v1/field/routes/${route.id}/positions`, { latitude: -33.4, longitude: -70.6, recordedAt: new Date().toISOString() }],
      ['POST', `/v1/field/routes/${route.id}/stops/${stop}/deliver`, {}],
      ['POST', `/v1/field/routes/${route.id}/stops/${stop}/fail`, { reason: 'x' }],
      ['POST', `/v1/field/routes/${route.id}/finish`],
      ['POST', `/v1/field/routes/${route.id}/cancel`, { version: 2 }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await stranger.call(admin, method, path, { body });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(404);
      expect(response.body.code).toBe('not_found');
    }
    expect((await stranger.call(admin, 'GET', '/v1/distribution/orders')).body.items).toEqual([]);
    // Nothing changed for the owner.
    expect((await owner.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body).toMatchObject({ state: 'started', version: 2 });
  });

  it('answers 403 not_assigned to a driver acting on someone else’s route, 404 to reading it', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const owner = await tenant.member('driver', { firstName: 'Juan' });
    const other = await tenant.member('driver', { firstName: 'Rosa' });
    const { route } = await routeWithOrders(tenant, operator, owner, one);
    const stop = route.stops[0].id;
    const start = await tenant.call(other, 'POST', `/v1/field/routes/${route.id}/start`);
    expect(start.status).toBe(403);
    expect(start.body.code).toBe('not_assigned');
    await tenant.call(owner, 'POST', `/v1/field/routes/${route.id}/start`);
    for (const [path, body] of [
      [`/v1/field/routes/${route.id}/positions`, { latitude: -33.4, longitude: -70.6, recordedAt: new Date().toISOString() }],
      [`/v1/field/routes/${route.id}/stops/${stop}/deliver`, {}],
      [`/v1/field/routes/${route.id}/stops/${stop}/fail`, { reason: 'x' }],
      [`/v1/field/routes/${route.id}/finish`, undefined],
    ] as const) {
      const response = await tenant.call(other, 'POST', path, { body });
      expect(response.status, path).toBe(403);
      expect(response.body.code).toBe('not_assigned');
    }
    expect((await tenant.call(other, 'GET', `/v1/field/routes/${route.id}`)).status).toBe(404);
    expect((await tenant.call(owner, 'GET', `/v1/field/routes/${route.id}`)).status).toBe(200);
    // Cancelling is for the office, not for drivers.
    expect((await tenant.call(owner, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: 2 } })).body.code).toBe('role_forbidden');
  });

  it('keeps roles: viewers read, drivers neither read orders nor plan, operators do', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const viewer = await tenant.member('viewer');
    const driver = await tenant.member('driver');
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ROLE-1') }));
    expect((await tenant.call(viewer, 'GET', `/v1/distribution/orders/${order.id}`)).status).toBe(200);
    expect((await tenant.call(viewer, 'POST', '/v1/distribution/orders', { body: orderBody('ROLE-2') })).status).toBe(403);
    expect((await tenant.call(driver, 'GET', '/v1/distribution/orders')).status).toBe(403);
    expect((await tenant.call(driver, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [order.id] }] } })).status).toBe(403);
    expect((await tenant.call(viewer, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: 1 } })).status).toBe(403);
  });

  it('assigns routes only to active drivers of the tenant', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { plan } = await routeWithOrders(tenant, operator, driver, one);
    const plan2 = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('W-1') })).id] }] } }));
    await tenant.call(operator, 'POST', `/v1/routing/plans/${plan2.id}/approve`, { body: { version: 1 } });
    const input = { routePlanId: plan2.id, vehicleRouteId: 'R1', workerId: operator.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: plate(), label: 'Van' } };
    const notDriver = await tenant.call(operator, 'POST', '/v1/field/routes', { body: input });
    expect(notDriver.status).toBe(422);
    expect(notDriver.body.code).toBe('invalid_worker');
    expect(plan.state).toBe('approved');
  });
});
