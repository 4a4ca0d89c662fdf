import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, eventCollector, orderBody, plate, routeWithOrders, waitFor } from './support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { 'test-events': collector.consumer } });
const one: [number, number][] = [[-33.44, -70.65]];

describe('versions, idempotency and transitions', () => {
  it('keeps coordinates to 7 decimals, so a vanishing one is stored as 0 instead of failing the write (found by the fuzzer)', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const order = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('TINY-1', 8.86e-164, -70.123456789) });
    expect(order.status, order.text).toBe(201);
    expect(order.body.address).toMatchObject({ latitude: 0, longitude: -70.1234568 });
    const { route } = await routeWithOrders(tenant, operator, driver, one);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const position = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -1e-300, longitude: 1e-131, recordedAt: new Date().toISOString() } });
    expect(position.status, position.text).toBeLessThan(300);
  });

  it('takes 12 concurrent positions of one route, each 202, and keeps the newest (the load run saw 409s)', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { route } = await routeWithOrders(tenant, operator, driver, one);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const base = Date.now() - 60_000;
    const times = Array.from({ length: 12 }, (_, i) => new Date(base + i * 1000).toISOString());
    const answers = await Promise.all(
      times.map((recordedAt, i) => tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.4 - i / 1000, longitude: -70.6, recordedAt } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(202));
    expect(answers.some((a) => a.body.accepted)).toBe(true);
    const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.position(tenant.id, route.id), ConsistentRead: true }));
    expect(Item).toMatchObject({ recordedAt: times[11], latitude: -33.411 });
  });

  it('refuses stale versions with 409 and the current version', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { orders, plan, route } = await routeWithOrders(tenant, operator, driver, one);
    const staleOrder = await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { body: { version: 1 } });
    expect(staleOrder.status).toBe(409);
    expect(staleOrder.body).toMatchObject({ code: 'version_mismatch', currentVersion: 2 });
    const stalePlan = await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } });
    expect(stalePlan.body).toMatchObject({ code: 'version_mismatch', currentVersion: 2 });
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const staleRoute = await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: 1 } });
    expect(staleRoute.status).toBe(409);
    expect(staleRoute.body).toMatchObject({ code: 'version_mismatch', currentVersion: 2 });
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.state).toBe('started');
  });

  it('replays orders, plans and routes created with the same idempotency key, once', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const key = randomUUID();
    const first = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('IDEM-1'), idempotencyKey: key });
    const again = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('IDEM-1'), idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('IDEM-2'), idempotencyKey: key });
    expect(other.status).toBe(422);
    const missing = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('IDEM-3'), idempotencyKey: false });
    expect(missing.status).toBe(400);

    const planBody = { serviceDate: '2026-11-23', routes: [{ vehicleRouteId: 'V9', orderIds: [first.body.id] }] };
    const planKey = randomUUID();
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: planBody, idempotencyKey: planKey }));
    const planAgain = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: planBody, idempotencyKey: planKey });
    expect(planAgain.body.id).toBe(plan.id);
    expect(planAgain.headers.get('idempotent-replayed')).toBe('true');
    await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } });
    const routeBody = { routePlanId: plan.id, vehicleRouteId: 'V9', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: plate(), label: 'Van' } };
    const routeKey = randomUUID();
    const route = created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: routeBody, idempotencyKey: routeKey }));
    const routeAgain = await tenant.call(operator, 'POST', '/v1/field/routes', { body: routeBody, idempotencyKey: routeKey });
    expect(routeAgain.status).toBe(201);
    expect(routeAgain.body.id).toBe(route.id);
    const twice = await tenant.call(operator, 'POST', '/v1/field/routes', { body: routeBody });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('route_already_assigned');

    await waitFor(() => (collector.events.some((e) => e.tenantId === tenant.id && e.type === 'field.route.assigned') ? true : undefined));
    const created_ = collector.events.filter((e) => e.tenantId === tenant.id && e.type === 'distribution.order.created');
    expect(created_).toHaveLength(1);
    expect(collector.events.filter((e) => e.tenantId === tenant.id && e.type === 'field.route.assigned')).toHaveLength(1);
  });

  it('reuses the fleet vehicle of the same plate', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const vehicle = created(await tenant.call(operator, 'POST', '/v1/fleet/vehicles', { body: { plate: 'KXLR-45', label: 'Camión azul' } }));
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('VEH-1') }));
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [order.id] }] } }));
    await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } });
    const route = created(
      await tenant.call(operator, 'POST', '/v1/field/routes', { body: { routePlanId: plan.id, vehicleRouteId: 'R1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: 'kx lr 45', label: 'Otro' } } }),
    );
    expect(route.fleetVehicleId).toBe(vehicle.id);
    expect((await tenant.call(operator, 'GET', '/v1/fleet/vehicles')).body.items).toHaveLength(1);
  });

  it('assigns 10 routes at once naming one new plate: every one 201, with one vehicle (chaos saw plate_taken)', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const orders = [];
    for (let i = 0; i < 10; i++) orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody(`LANE-${i}`) })));
    const routes = orders.map((order, i) => ({ vehicleRouteId: `L${i}`, orderIds: [order.id] }));
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes } }));
    created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
    const shared = plate();
    const answers = await Promise.all(
      routes.map(({ vehicleRouteId }) =>
        tenant.call(operator, 'POST', '/v1/field/routes', {
          body: { routePlanId: plan.id, vehicleRouteId, workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: shared, label: 'Camión compartido' } },
        }),
      ),
    );
    expect(answers.map((a) => `${a.status} ${a.body.code ?? ''}`)).toEqual(Array(10).fill('201 '));
    const vehicles = (await tenant.call(operator, 'GET', '/v1/fleet/vehicles')).body.items;
    expect(vehicles).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.fleetVehicleId))).toEqual(new Set([vehicles[0].id]));
  });

  it('refuses transitions the state does not allow with 409 invalid_state', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('T-1') }));
    const preview = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [order.id] }] } }));
    const early = await tenant.call(operator, 'POST', '/v1/field/routes', { body: { routePlanId: preview.id, vehicleRouteId: 'R1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'B', vehicle: { plate: plate(), label: 'V' } } });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('invalid_state');
    await tenant.call(operator, 'POST', `/v1/routing/plans/${preview.id}/approve`, { body: { version: 1 } });
    expect((await tenant.call(operator, 'POST', `/v1/routing/plans/${preview.id}/approve`, { body: { version: 2 } })).body.code).toBe('invalid_state');

    const { orders, route } = await routeWithOrders(tenant, operator, driver, [
      [-33.44, -70.65],
      [-33.43, -70.64],
    ]);
    const stop = route.stops[0].id;
    const expectInvalid = async (path: string, body?: unknown, code = 'invalid_state') => {
      const response = await tenant.call(driver, 'POST', path, { body });
      expect(response.status, `${path}: ${response.text}`).toBe(409);
      expect(response.body.code).toBe(code);
    };
    await expectInvalid(`/v1/field/routes/${route.id}/stops/${stop}/deliver`, {});
    await expectInvalid(`/v1/field/routes/${route.id}/positions`, { latitude: -33.4, longitude: -70.6, recordedAt: new Date().toISOString() });
    await expectInvalid(`/v1/field/routes/${route.id}/finish`);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    await expectInvalid(`/v1/field/routes/${route.id}/start`);
    await expectInvalid(`/v1/field/routes/${route.id}/finish`, undefined, 'stops_pending');
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stop}/deliver`, { body: {} })).status).toBe(200);
    await expectInvalid(`/v1/field/routes/${route.id}/stops/${stop}/fail`, { reason: 'late' });
    const delivered = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    const cancel = await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[0].id}/cancel`, { body: { version: delivered.version } });
    expect(cancel.body.code).toBe('invalid_state');
    // An order already on a route cannot go on a second plan.
    const replan = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [orders[1].id] }] } });
    expect(replan.status).toBe(422);
    expect(replan.body.code).toBe('invalid_plan');
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[1].id}/fail`, { body: { reason: 'cerrado' } });
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/finish`)).status).toBe(200);
    const current = (await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body;
    const cancelFinished = await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: current.version } });
    expect(cancelFinished.body.code).toBe('invalid_state');
  });

  it('enforces the route’s verification policy at delivery', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { route } = await routeWithOrders(tenant, operator, driver, one, { verification: { photo: true, signature: true, minPhotos: 2 } });
    expect(route.verification).toEqual({ photo: true, signature: true, minPhotos: 2 });
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const path = `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`;
    const short = await tenant.call(driver, 'POST', path, { body: { evidence: [{ kind: 'photo', reference: 'a.jpg' }] } });
    expect(short.status).toBe(422);
    expect(short.body.code).toBe('evidence_required');
    expect(short.body.errors).toHaveLength(2);
    const evidence = [
      { kind: 'photo', reference: 'a.jpg' },
      { kind: 'photo', reference: 'b.jpg' },
      { kind: 'signature', reference: 'sig.png' },
    ];
    const ok = await tenant.call(driver, 'POST', path, { body: { evidence } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ state: 'delivered', evidenceCount: 3 });
  });

  it('validates inputs with 400 and plans with 422', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const bad = await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: { ...orderBody('V-1'), address: { text: 'x', latitude: 100, longitude: 0 }, extra: 1 } });
    expect(bad.status).toBe(400);
    const plan = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ orderIds: [randomUUID()] }] } });
    expect(plan.status).toBe(422);
    expect(plan.body.errors[0].path).toBe('body.routes.0.orderIds.0');
  });
});
