import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, orderBody } from './support.ts';

const stack = useLocalStack();

/** Decisions 11, "Documents on the road": the tenant's vehicleDocumentsPolicy on assign and start. */

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
let counter = 0;
const newPlate = () => `VD${Date.now().toString(36).slice(-5).toUpperCase()}${++counter}`.slice(0, 12);

interface World {
  tenant: TestTenant;
  admin: TestMember;
  operator: TestMember;
  driver: TestMember;
}

const world = async (timeZone?: string): Promise<World> => {
  const tenant = await TestTenant.create(stack(), 'Transportes Cordillera SpA', timeZone);
  return { tenant, admin: await tenant.member('admin'), operator: await tenant.member('operator'), driver: await tenant.member('driver') };
};

const setPolicy = async (w: World, policy: 'ignore' | 'warn' | 'block') => {
  const { version } = (await w.tenant.call(w.admin, 'GET', '/v1/tenant/settings')).body;
  created(await w.tenant.call(w.admin, 'PATCH', '/v1/tenant/settings', { body: { version, vehicleDocumentsPolicy: policy } }), 200);
};

/** A registered vehicle with these document dates in its care record. */
const vehicleWith = async (w: World, dates: { technicalReview?: string | null; circulationPermit?: string | null; soap?: string | null }, plate = newPlate()) => {
  const vehicle = created(await w.tenant.call(w.operator, 'POST', '/v1/fleet/vehicles', { body: { plate, label: 'Camión 3/4' } }));
  const care = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: null, ...dates };
  created(await w.tenant.call(w.operator, 'PUT', `/v1/fleet/vehicles/${vehicle.id}/care`, { body: { version: 0, ...care } }), 200);
  return vehicle;
};

/** An approved plan of one order for the service date, ready to be assigned. */
const approvedPlan = async (w: World, serviceDate: string) => {
  const order = created(await w.tenant.call(w.operator, 'POST', '/v1/distribution/orders', { body: orderBody(`DOC-${randomUUID().slice(0, 8)}`, -33.45, -70.66, serviceDate) }));
  const plan = created(await w.tenant.call(w.operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] } }));
  created(await w.tenant.call(w.operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  return { plan, order };
};

const assign = (w: World, planId: string, serviceDate: string, plate: string) =>
  w.tenant.call(w.operator, 'POST', '/v1/field/routes', {
    body: { routePlanId: planId, vehicleRouteId: 'V1', workerId: w.driver.id, serviceDate, depotName: 'Bodega Quilicura', vehicle: { plate, label: 'Camión 3/4' } },
  });

const start = (w: World, routeId: string) => w.tenant.call(w.driver, 'POST', `/v1/field/routes/${routeId}/start`);

const expiredWarning = (items: string[]) => [{ code: 'vehicle_documents_expired', items }];

describe('vehicle documents before a route leaves', () => {
  const serviceDate = '2026-12-15';

  it('warn (the default): assign and start answer the documents dated before the service date; one dated on it is still valid', async () => {
    const w = await world();
    const vehicle = await vehicleWith(w, { technicalReview: addDays(serviceDate, -1), circulationPermit: serviceDate, soap: addDays(serviceDate, 200) });
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, vehicle.plate);
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body).toMatchObject({ state: 'assigned', fleetVehicleId: vehicle.id, warnings: expiredWarning(['technicalReview']) });
    const started = await start(w, assigned.body.id);
    expect(started.status, started.text).toBe(200);
    expect(started.body).toMatchObject({ state: 'started', warnings: expiredWarning(['technicalReview']) });
    // The warning is part of those answers only: the route read later has none.
    expect((await w.tenant.call(w.operator, 'GET', `/v1/field/routes/${assigned.body.id}`)).body.warnings).toBeUndefined();
  });

  it('the day a document expires it is valid; the day after, expired (the route’s service date, whatever the zone’s today)', async () => {
    // A zone far from UTC: the comparison is of the route's service date, not of an instant.
    const w = await world('Pacific/Easter');
    const expires = '2026-12-20';
    const vehicle = await vehicleWith(w, { technicalReview: expires, circulationPermit: expires, soap: expires });
    const onTheDay = await approvedPlan(w, expires);
    const dayAfter = await approvedPlan(w, addDays(expires, 1));
    const first = await assign(w, onTheDay.plan.id, expires, vehicle.plate);
    expect(first.status, first.text).toBe(201);
    expect(first.body.warnings).toEqual([]);
    const second = await assign(w, dayAfter.plan.id, addDays(expires, 1), vehicle.plate);
    expect(second.status, second.text).toBe(201);
    expect(second.body.warnings).toEqual(expiredWarning(['technicalReview', 'circulationPermit', 'soap']));
    expect((await start(w, first.body.id)).body.warnings).toEqual([]);
    expect((await start(w, second.body.id)).body.warnings).toEqual(expiredWarning(['technicalReview', 'circulationPermit', 'soap']));
  });

  it('warn with nothing expired, or with no dates recorded, answers an empty list', async () => {
    const w = await world();
    const valid = await vehicleWith(w, { technicalReview: serviceDate, circulationPermit: addDays(serviceDate, 30), soap: null });
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, valid.plate);
    expect(assigned.body.warnings).toEqual([]);
    expect((await start(w, assigned.body.id)).body.warnings).toEqual([]);
    // A registered vehicle without a care record has nothing to be expired.
    const bare = created(await w.tenant.call(w.operator, 'POST', '/v1/fleet/vehicles', { body: { plate: newPlate(), label: 'Furgón' } }));
    const other = await approvedPlan(w, serviceDate);
    expect((await assign(w, other.plan.id, serviceDate, bare.plate)).body.warnings).toEqual([]);
  });

  it('block: assigning is 422 vehicle_documents_expired with the items, and changes nothing', async () => {
    const w = await world();
    await setPolicy(w, 'block');
    // The plate written as people write it: the registry's normalised vehicle is found.
    const vehicle = await vehicleWith(w, { technicalReview: addDays(serviceDate, -30), circulationPermit: addDays(serviceDate, -1), soap: serviceDate }, 'KX' + String(++counter).padStart(4, '0'));
    const { plan, order } = await approvedPlan(w, serviceDate);
    const written = `${vehicle.plate.slice(0, 2).toLowerCase()}-${vehicle.plate.slice(2)}`;
    const refused = await assign(w, plan.id, serviceDate, written);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ code: 'vehicle_documents_expired', items: ['technicalReview', 'circulationPermit'] });
    expect(refused.body.errors).toEqual([
      { path: 'body.vehicle.plate', message: expect.stringContaining('technicalReview') },
      { path: 'body.vehicle.plate', message: expect.stringContaining('circulationPermit') },
    ]);
    // Nothing changed: the order is still pending and the plan's route can still be assigned.
    expect((await w.tenant.call(w.operator, 'GET', `/v1/distribution/orders/${order.id}`)).body).toMatchObject({ state: 'pending', routeId: null });
    const care = (await w.tenant.call(w.operator, 'GET', `/v1/fleet/vehicles/${vehicle.id}/care`)).body;
    created(
      await w.tenant.call(w.operator, 'PUT', `/v1/fleet/vehicles/${vehicle.id}/care`, {
        body: { version: care.version, ...care.care, technicalReview: addDays(serviceDate, 180), circulationPermit: addDays(serviceDate, 100) },
      }),
      200,
    );
    const assigned = await assign(w, plan.id, serviceDate, written);
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body).toMatchObject({ fleetVehicleId: vehicle.id, warnings: [] });
  });

  it('block: starting is 422 when a document expired after the assignment, and the route stays assigned', async () => {
    const w = await world();
    const vehicle = await vehicleWith(w, { soap: addDays(serviceDate, 10) });
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, vehicle.plate);
    expect(assigned.body.warnings).toEqual([]);
    await setPolicy(w, 'block');
    created(await w.tenant.call(w.operator, 'PUT', `/v1/fleet/vehicles/${vehicle.id}/care`, { body: { version: 1, technicalReview: null, circulationPermit: null, soap: addDays(serviceDate, -1), service: null, serviceKm: null } }), 200);
    const refused = await start(w, assigned.body.id);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ code: 'vehicle_documents_expired', items: ['soap'], errors: [{ path: 'path.id' }] });
    expect((await w.tenant.call(w.operator, 'GET', `/v1/field/routes/${assigned.body.id}`)).body).toMatchObject({ state: 'assigned', version: 1, startedAt: null });
    // The next request sees the next setting: no cache keeps the old policy.
    await setPolicy(w, 'warn');
    const started = await start(w, assigned.body.id);
    expect(started.status, started.text).toBe(200);
    expect(started.body.warnings).toEqual(expiredWarning(['soap']));
  });

  it('block: starting checks the vehicle itself, also after its plate changed in the registry', async () => {
    const w = await world();
    const vehicle = await vehicleWith(w, { technicalReview: addDays(serviceDate, 30) });
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, vehicle.plate);
    expect(assigned.status, assigned.text).toBe(201);
    // Re-plated (a new plate after a repaint, a typo fixed): the route keeps the plate it was given.
    const renamed = await w.tenant.call(w.operator, 'PATCH', `/v1/fleet/vehicles/${vehicle.id}`, { body: { version: vehicle.version, plate: newPlate() } });
    expect(renamed.status, renamed.text).toBe(200);
    await setPolicy(w, 'block');
    created(await w.tenant.call(w.operator, 'PUT', `/v1/fleet/vehicles/${vehicle.id}/care`, { body: { version: 1, technicalReview: addDays(serviceDate, -2), circulationPermit: null, soap: null, service: null, serviceKm: null } }), 200);
    const refused = await start(w, assigned.body.id);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toMatchObject({ code: 'vehicle_documents_expired', items: ['technicalReview'] });
    expect((await w.tenant.call(w.operator, 'GET', `/v1/field/routes/${assigned.body.id}`)).body).toMatchObject({ state: 'assigned', startedAt: null });
  });

  it('ignore: expired documents neither warn nor block, on assign and on start', async () => {
    const w = await world();
    await setPolicy(w, 'ignore');
    const vehicle = await vehicleWith(w, { technicalReview: addDays(serviceDate, -5), circulationPermit: addDays(serviceDate, -5), soap: addDays(serviceDate, -5) });
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, vehicle.plate);
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body.warnings).toEqual([]);
    const started = await start(w, assigned.body.id);
    expect(started.status, started.text).toBe(200);
    expect(started.body.warnings).toEqual([]);
  });

  it('a route whose vehicle is not in the registry is not checked, even under block', async () => {
    const w = await world();
    await setPolicy(w, 'block');
    const { plan } = await approvedPlan(w, serviceDate);
    const assigned = await assign(w, plan.id, serviceDate, newPlate());
    expect(assigned.status, assigned.text).toBe(201);
    expect(assigned.body.warnings).toEqual([]);
    expect((await start(w, assigned.body.id)).body.warnings).toEqual([]);
  });

  it('an idempotent repeat of an assignment replays its warnings', async () => {
    const w = await world();
    const vehicle = await vehicleWith(w, { technicalReview: addDays(serviceDate, -1) });
    const { plan } = await approvedPlan(w, serviceDate);
    const key = randomUUID();
    const body = { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: w.driver.id, serviceDate, depotName: 'Bodega', vehicle: { plate: vehicle.plate, label: 'Camión' } };
    const first = await w.tenant.call(w.operator, 'POST', '/v1/field/routes', { body, idempotencyKey: key });
    const again = await w.tenant.call(w.operator, 'POST', '/v1/field/routes', { body, idempotencyKey: key });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.warnings).toEqual(expiredWarning(['technicalReview']));
  });
});
