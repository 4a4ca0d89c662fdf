import { describe, expect, it } from 'vitest';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { checkPreview, makeDepot, makeOrder, makeVehicle, ok, SERVICE_DATE, waitForPreview } from './support.ts';

const stack = useLocalStack();

describe('orders a preview cannot route, each with the reasons that are true of it (decisions 15)', () => {
  it('says capacity_exceeded, no_room, skills_missing and time_window_unreachable only where each holds', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const depot = await makeDepot(tenant, admin);
    const vehicles = [await makeVehicle(tenant, admin, { capacity: { weightKg: 100, volumeM3: null } }), await makeVehicle(tenant, admin, { capacity: { weightKg: 100, volumeM3: 2 } })];
    const near = { latitude: -33.40, longitude: -70.70 };
    const tooHeavy = await makeOrder(tenant, operator, { ...near, load: { weightKg: 500, volumeM3: 0 } });
    // Three of 60 kg and two vehicles of 100 kg: each fits alone, one of them cannot fit beside the others.
    const sixty = [];
    for (let i = 0; i < 3; i++) sixty.push(await makeOrder(tenant, operator, { latitude: near.latitude + i * 0.01, longitude: near.longitude, load: { weightKg: 60, volumeM3: 0.5 } }));
    const crane = await makeOrder(tenant, operator, { ...near, skills: ['grúa'] });
    const dawn = await makeOrder(tenant, operator, { ...near, timeWindows: [{ from: '06:00', to: '07:00' }] });
    const orders = [tooHeavy, ...sixty, crane, dawn];
    const request = {
      serviceDate: SERVICE_DATE,
      depotId: depot.id,
      orderIds: orders.map((o) => o.id),
      vehicles: vehicles.map((v) => ({ vehicleId: v.id, shiftStart: '08:00', shiftEnd: '18:00' })),
      objective: 'distance',
      timeLimitSeconds: 1,
    };
    const asked = ok(await tenant.call(operator, 'POST', '/v1/routing/previews', { body: request }), 202);
    const preview = await waitForPreview(tenant, operator, asked.id);
    checkPreview(preview, { orders, vehicles, request });
    expect(preview.objective).toBe('distance');

    const reasons = new Map(preview.unassigned.map((u: any) => [u.orderId, u.reasons]));
    expect(preview.totals).toMatchObject({ assignedCount: 2, unassignedCount: 4 });
    expect(reasons.get(tooHeavy.id)).toEqual([{ code: 'capacity_exceeded', message: 'Its load is more than any of the 2 vehicles can carry.' }]);
    expect(reasons.get(crane.id)).toEqual([{ code: 'skills_missing', message: 'None of the 2 vehicles has every skill it needs.' }]);
    expect(reasons.get(dawn.id)).toEqual([{ code: 'time_window_unreachable', message: expect.stringMatching(/^None of the 2 vehicles can serve it within one of its time windows/) }]);
    const leftOver = sixty.filter((o) => reasons.has(o.id));
    expect(leftOver).toHaveLength(1);
    expect(reasons.get(leftOver[0].id)).toEqual([{ code: 'no_room', message: expect.stringMatching(/route of its own/) }]);
    // Each 60 kg order on a route is alone on it: two cannot share a vehicle of 100 kg.
    for (const route of preview.routes) expect(route.stops).toHaveLength(1);
  });

  it('says no_vehicle_fits, naming what rules out each vehicle, when no reason holds for every vehicle (decisions 18)', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const depot = await makeDepot(tenant, admin);
    // The cold vehicle is too small, the big one has no cold room: no vehicle can take the order.
    const vehicles = [await makeVehicle(tenant, admin, { capacity: { weightKg: 100, volumeM3: null }, skills: ['refrigerado'] }), await makeVehicle(tenant, admin, { capacity: { weightKg: 1000, volumeM3: null } })];
    const cold = await makeOrder(tenant, operator, { latitude: -33.41, longitude: -70.69, load: { weightKg: 300, volumeM3: 0 }, skills: ['refrigerado'] });
    const request = { serviceDate: SERVICE_DATE, depotId: depot.id, orderIds: [cold.id], vehicles: vehicles.map((v) => ({ vehicleId: v.id, shiftStart: '08:00', shiftEnd: '18:00' })), timeLimitSeconds: 1 };
    const preview = await waitForPreview(tenant, operator, ok(await tenant.call(operator, 'POST', '/v1/routing/previews', { body: request }), 202).id);
    checkPreview(preview, { orders: [cold], vehicles, request });
    expect(preview.routes).toEqual([]);
    expect(preview.unassigned).toEqual([
      {
        orderId: cold.id,
        reasons: [
          {
            code: 'no_vehicle_fits',
            message: 'No single vehicle can serve it on a route of its own: vehicle 2 lacks a skill it needs; its load is more than vehicle 1 can carry (vehicles numbered as in the request).',
          },
        ],
      },
    ]);
  });
});
