import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { approvedPlan, assignBody } from '../routes/support.ts';
import { makeDepot, makeOrder, makeVehicle, ok, SERVICE_DATE, waitForPreview } from './support.ts';

const stack = useLocalStack();
const ZONE = 'America/Santiago';

const localDate = (at: number) => new Date(at).toLocaleDateString('en-CA', { timeZone: ZONE });

describe('previews of a changing day (decisions 17)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let driver: TestMember;
  let depot: any;
  let vehicle: any;

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
    operator = await tenant.member('operator');
    driver = await tenant.member('driver');
    depot = await makeDepot(tenant, admin);
    vehicle = await makeVehicle(tenant, admin);
  }, 60_000);

  it('plans today from now: no route leaves before earliestStartAt (createdAt + planningLeadMinutes, up to the minute); other days have none', async () => {
    const settings = ok(await tenant.call(admin, 'GET', '/v1/tenant/settings'));
    ok(await tenant.call(admin, 'PATCH', '/v1/tenant/settings', { body: { version: settings.version, planningLeadMinutes: 45 } }));
    const today = localDate(Date.now());
    const open = await makeOrder(tenant, operator, { latitude: -33.42, longitude: -70.65, serviceDate: today });
    // A window that closed at 00:01: no vehicle can reach it from now on.
    const gone = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.64, serviceDate: today, timeWindows: [{ from: '00:00', to: '00:01' }] });
    const asked = ok(
      await tenant.call(operator, 'POST', '/v1/routing/previews', {
        body: { serviceDate: today, depotId: depot.id, orderIds: [open.id, gone.id], vehicles: [{ vehicleId: vehicle.id, shiftStart: '00:00', shiftEnd: '23:59' }], timeLimitSeconds: 1 },
      }),
      202,
    );
    const expected = Math.ceil((Date.parse(asked.createdAt) + 45 * 60_000) / 60_000) * 60_000;
    expect(Date.parse(asked.earliestStartAt)).toBe(expected);
    expect(asked.earliestStartAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00[+-]\d{2}:\d{2}$/);
    const preview = await waitForPreview(tenant, operator, asked.id);
    expect(preview.state).toBe('ready');
    const reasons = new Map(preview.unassigned.map((u: any) => [u.orderId, u.reasons.map((r: any) => r.code)]));
    expect(reasons.get(gone.id)).toEqual(['time_window_unreachable']);
    if (localDate(expected) === today && localDate(expected + 30 * 60_000) === today) {
      // The day still has room after earliestStartAt: the open order is served, leaving no earlier.
      expect(preview.routes).toHaveLength(1);
      expect(Date.parse(preview.routes[0].startAt)).toBeGreaterThanOrEqual(expected);
    } else {
      // Asked late in the evening: the shift is over by earliestStartAt.
      expect(reasons.get(open.id)).toEqual(['time_window_unreachable']);
    }

    const other = await makeOrder(tenant, operator, { latitude: -33.42, longitude: -70.65 });
    const tomorrowish = ok(
      await tenant.call(operator, 'POST', '/v1/routing/previews', {
        body: { serviceDate: SERVICE_DATE, depotId: depot.id, orderIds: [other.id], vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }], timeLimitSeconds: 1 },
      }),
      202,
    );
    expect(tomorrowish.earliestStartAt).toBeNull();
    const solved = await waitForPreview(tenant, operator, tomorrowish.id);
    expect(solved.routes[0].startAt).toBe(`${SERVICE_DATE}T08:00:00-03:00`);
  });

  it('names each route it cannot change: unknown, not assigned, another date, twice, its vehicle missing from vehicles', async () => {
    const [a, b, c] = [
      await makeOrder(tenant, operator, { latitude: -33.41, longitude: -70.6 }),
      await makeOrder(tenant, operator, { latitude: -33.42, longitude: -70.61 }),
      await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62, serviceDate: '2026-11-24' }),
    ];
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: [a.id] }, { vehicleRouteId: 'V2', orderIds: [b.id] }]);
    const assigned = ok(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V1') }), 201);
    const started = ok(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V2') }), 201);
    ok(await tenant.call(driver, 'POST', `/v1/field/routes/${started.id}/start`));
    const later = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: [c.id] }], undefined, '2026-11-24');
    const otherDay = ok(await tenant.call(operator, 'POST', '/v1/field/routes', { body: { ...assignBody(later.id, driver, 'V1'), serviceDate: '2026-11-24' } }), 201);
    const unknown = randomUUID();
    const answer = await tenant.call(operator, 'POST', '/v1/routing/previews', {
      body: {
        serviceDate: SERVICE_DATE,
        depotId: depot.id,
        routeIds: [unknown, started.id, otherDay.id, assigned.id, assigned.id],
        vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }],
      },
    });
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.code).toBe('invalid_preview');
    const byPath = Object.fromEntries(answer.body.errors.map((e: any) => [e.path, e.message]));
    expect(Object.keys(byPath)).toEqual(['body.routeIds.0', 'body.routeIds.1', 'body.routeIds.2', 'body.routeIds.3', 'body.routeIds.4']);
    expect(byPath['body.routeIds.0']).toContain('no route');
    expect(byPath['body.routeIds.1']).toContain('started');
    expect(byPath['body.routeIds.2']).toContain('2026-11-24');
    expect(byPath['body.routeIds.3']).toContain('must be among vehicles');
    expect(byPath['body.routeIds.4']).toContain('more than once');
    expect(ok(await tenant.call(operator, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items.filter((p: any) => p.state === 'queued')).toEqual([]);
    const tooMany = await tenant.call(operator, 'POST', '/v1/routing/previews', {
      body: { serviceDate: SERVICE_DATE, depotId: depot.id, routeIds: Array.from({ length: 101 }, () => randomUUID()), vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }] },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.map((e: any) => e.path)).toContain('body.routeIds');
  });

  it('plans over an assigned route: its orders join, it keeps its vehicle, the preview reads at a glance, and its plan applies', async () => {
    const [a, b] = [await makeOrder(tenant, operator, { latitude: -33.40, longitude: -70.66 }), await makeOrder(tenant, operator, { latitude: -33.41, longitude: -70.67 })];
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: [a.id, b.id] }]);
    const route = ok(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V1') }), 201);
    const registry = ok(await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${route.fleetVehicleId}`));
    const c = await makeOrder(tenant, operator, { latitude: -33.405, longitude: -70.665 });
    const asked = ok(
      await tenant.call(operator, 'POST', '/v1/routing/previews', {
        body: {
          serviceDate: SERVICE_DATE,
          depotId: depot.id,
          orderIds: [c.id],
          routeIds: [route.id],
          vehicles: [{ vehicleId: route.fleetVehicleId, shiftStart: '08:00', shiftEnd: '18:00' }, { vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }],
          objective: 'distance',
          timeLimitSeconds: 1,
        },
      }),
      202,
    );
    const preview = await waitForPreview(tenant, operator, asked.id);
    expect(preview.state).toBe('ready');
    expect(preview.unassigned).toEqual([]);
    const onRoute = preview.routes.find((r: any) => r.vehicleId === route.fleetVehicleId);
    expect(onRoute).toMatchObject({ routeId: route.id, label: registry.label, plate: registry.plate });
    for (const r of preview.routes) {
      if (r !== onRoute) expect(r.routeId).toBeNull();
      expect(r.stops.map((s: any) => s.sequence)).toEqual(r.stops.map((_: any, i: number) => i + 1));
    }
    const refs = new Map([a, b, c].map((o) => [o.id, o.reference]));
    const stops = preview.routes.flatMap((r: any) => r.stops);
    expect(stops.map((s: any) => s.reference).sort()).toEqual(stops.map((s: any) => refs.get(s.orderId)).sort());
    expect(new Set(stops.map((s: any) => s.orderId))).toEqual(new Set([a.id, b.id, c.id]));

    const next = ok(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: preview.id } }), 201);
    expect(next.routes.find((r: any) => r.vehicleRouteId === onRoute.vehicleRouteId).routeId).toBe(route.id);
    // A planned route that changes an assigned one is applied, not assigned.
    const approved = ok(await tenant.call(operator, 'POST', `/v1/routing/plans/${next.id}/approve`, { body: { version: 1 } }));
    const assign = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(next.id, driver, onRoute.vehicleRouteId) });
    expect(assign.status).toBe(422);
    const applied = ok(await tenant.call(operator, 'POST', `/v1/routing/plans/${next.id}/apply`, { body: { version: approved.version } }));
    expect(applied.routes).toEqual([expect.objectContaining({ routeId: route.id, version: 2 })]);
    const after = ok(await tenant.call(driver, 'GET', `/v1/field/routes/${route.id}`));
    expect(after.stops.map((s: any) => s.orderId)).toEqual(onRoute.stops.map((s: any) => s.orderId));
    expect(after.stops.map((s: any) => s.plannedArrivalAt)).toEqual(onRoute.stops.map((s: any) => s.arrivalAt));
  });
});
