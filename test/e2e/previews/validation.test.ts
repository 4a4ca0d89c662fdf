import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { makeDepot, makeOrder, makeVehicle, ok, SERVICE_DATE } from './support.ts';

const stack = useLocalStack();

describe('a preview that cannot be planned is refused whole (decisions 15)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let depot: any;
  let vehicle: any;
  let pending: any;

  const ask = (body: Record<string, unknown>) => tenant.call(operator, 'POST', '/v1/routing/previews', { body: { serviceDate: SERVICE_DATE, depotId: depot.id, vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }], ...body } });

  /** 422 invalid_preview naming exactly these paths, and no preview stored for the date. */
  const refused = async (body: Record<string, unknown>, paths: string[]) => {
    const answer = await ask(body);
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.code).toBe('invalid_preview');
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    for (const e of answer.body.errors) expect(e.message.length).toBeGreaterThan(5);
    expect(ok(await tenant.call(operator, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items).toEqual([]);
    return answer.body;
  };

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
    operator = await tenant.member('operator');
    depot = await makeDepot(tenant, admin);
    vehicle = await makeVehicle(tenant, admin);
    pending = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62 });
  });

  it('names an unknown depot', async () => {
    await refused({ depotId: randomUUID(), orderIds: [pending.id] }, ['body.depotId']);
  });

  it('names each order that is unknown, not pending, of another date, or named twice, all at once', async () => {
    const tomorrow = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62, serviceDate: '2026-11-24' });
    const cancelled = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62 });
    ok(await tenant.call(operator, 'POST', `/v1/distribution/orders/${cancelled.id}/cancel`, { body: { version: cancelled.version } }));
    const problem = await refused({ orderIds: [pending.id, randomUUID(), tomorrow.id, cancelled.id, pending.id] }, [
      'body.orderIds.1',
      'body.orderIds.2',
      'body.orderIds.3',
      'body.orderIds.4',
    ]);
    expect(problem.errors.map((e: { message: string }) => e.message)).toEqual([
      'no order with this id',
      'the order is for 2026-11-24',
      'the order is cancelled, not pending',
      'this order appears more than once',
    ]);
  });

  it('refuses a day with no order left to plan', async () => {
    const empty = await refused({ serviceDate: '2026-12-01' }, ['body.orderIds']);
    expect(empty.errors[0].message).toMatch(/no pending order of 2026-12-01/);
    // The day's only pending order is held by a plan in preview: nothing is left either.
    const day = '2026-12-02';
    const held = await makeOrder(tenant, operator, { latitude: -33.43, longitude: -70.62, serviceDate: day });
    ok(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: day, routes: [{ orderIds: [held.id] }] } }), 201);
    await refused({ serviceDate: day }, ['body.orderIds']);
  });

  it('names each vehicle that is unknown, inactive or named twice, and a shift that ends before it starts', async () => {
    const parked = await makeVehicle(tenant, admin, { active: false });
    await refused(
      {
        orderIds: [pending.id],
        vehicles: [
          { vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' },
          { vehicleId: randomUUID(), shiftStart: '08:00', shiftEnd: '18:00' },
          { vehicleId: parked.id, shiftStart: '08:00', shiftEnd: '18:00' },
          { vehicleId: vehicle.id, shiftStart: '09:00', shiftEnd: '17:00' },
          { vehicleId: vehicle.id, shiftStart: '18:00', shiftEnd: '08:00' },
        ],
      },
      ['body.vehicles.1.vehicleId', 'body.vehicles.2.vehicleId', 'body.vehicles.3.vehicleId', 'body.vehicles.4.shiftEnd', 'body.vehicles.4.vehicleId'],
    );
  });

  it('reports the depot, the orders and the vehicles together', async () => {
    await refused({ depotId: randomUUID(), orderIds: [randomUUID()], vehicles: [{ vehicleId: vehicle.id, shiftStart: '10:00', shiftEnd: '10:00' }] }, [
      'body.depotId',
      'body.orderIds.0',
      'body.vehicles.0.shiftEnd',
    ]);
  });

  it('leaves shapes to the schema: 400 for a bad seed, time limit, clock time or an unknown field', async () => {
    for (const body of [{ seed: -1 }, { timeLimitSeconds: 121 }, { orderIds: [] }, { vehicles: [] }, { vehicles: [{ vehicleId: vehicle.id, shiftStart: '8:00', shiftEnd: '18:00' }] }, { objective: 'time' }, { colour: 'red' }]) {
      const answer = await ask({ orderIds: [pending.id], ...body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect(ok(await tenant.call(operator, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items).toEqual([]);
  });
});
