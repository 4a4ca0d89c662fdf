import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { checkPreview, makeDepot, makeOrder, makeVehicle, ok, SERVICE_DATE, waitForPreview, type OrderInput } from './support.ts';

const stack = useLocalStack();

/** 30 orders around Santiago: morning, afternoon, two-window and open ones; some cold, loads of 20-95 kg. */
const dayOrders = (): OrderInput[] =>
  Array.from({ length: 30 }, (_, i) => {
    const angle = (i * 2 * Math.PI) / 30;
    const radius = 0.03 + (i % 5) * 0.012;
    const windows = [[{ from: '09:00', to: '12:00' }], [{ from: '14:00', to: '17:00' }], [{ from: '08:30', to: '10:00' }, { from: '15:00', to: '16:30' }], []][i % 4];
    return {
      latitude: -33.45 + radius * Math.sin(angle),
      longitude: -70.65 + radius * Math.cos(angle),
      timeWindows: windows,
      serviceMinutes: 5 + (i % 3) * 5,
      load: { weightKg: 20 + (i % 16) * 5, volumeM3: [0.1, 0.15, 0.2, 0.25][i % 4] },
      skills: i % 7 === 0 ? ['refrigerado'] : [],
    };
  });

describe('a route preview from request to routes (decisions 15)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let viewer: TestMember;
  let driver: TestMember;
  let orders: any[];
  let vehicles: any[];
  let depot: any;
  let body: any;
  let first: any;

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
    operator = await tenant.member('operator');
    viewer = await tenant.member('viewer');
    driver = await tenant.member('driver');
    depot = await makeDepot(tenant, admin);
    vehicles = [
      await makeVehicle(tenant, admin, { capacity: { weightKg: 800, volumeM3: 4 }, skills: ['refrigerado'] }),
      await makeVehicle(tenant, admin, { capacity: { weightKg: 600, volumeM3: 3 } }),
      await makeVehicle(tenant, admin, { capacity: { weightKg: null, volumeM3: null } }),
    ];
    orders = [];
    for (const input of dayOrders()) orders.push(await makeOrder(tenant, operator, input));
    body = {
      serviceDate: SERVICE_DATE,
      depotId: depot.id,
      vehicles: vehicles.map((v, i) => ({ vehicleId: v.id, shiftStart: i === 2 ? '10:00' : '08:00', shiftEnd: '18:00', ...(i === 1 ? { maxStops: 8 } : {}) })),
      timeLimitSeconds: 2,
      seed: 7,
    };
  }, 240_000);

  it('takes every pending order of the day no plan holds, answers 202 queued, and solves it to routes that keep every rule', async () => {
    // Left out: an order of another day, and one a plan in preview already holds.
    await makeOrder(tenant, operator, { latitude: -33.44, longitude: -70.64, serviceDate: '2026-11-24' });
    const held = await makeOrder(tenant, operator, { latitude: -33.44, longitude: -70.64 });
    ok(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: SERVICE_DATE, routes: [{ orderIds: [held.id] }] } }), 201);

    const answer = await tenant.call(operator, 'POST', '/v1/routing/previews', { body });
    expect(answer.status, answer.text).toBe(202);
    first = answer.body;
    expect(answer.headers.get('location')).toBe(`/v1/routing/previews/${first.id}`);
    expect(first).toMatchObject({ serviceDate: SERVICE_DATE, depotId: depot.id, objective: 'duration', state: 'queued', failure: null, routes: [], unassigned: [], totals: null, version: 1 });
    // 30 orders: 10 s + one per 20 orders would be 11; the request's 2 stands.
    expect(first.solver).toEqual({ name: expect.any(String), version: expect.any(String), seed: 7, timeLimitSeconds: 2, elapsedMs: null, travelModel: 'haversine/25kmh/ceil-s', stoppedBy: null });

    const ready = await waitForPreview(tenant, operator, first.id);
    checkPreview(ready, { orders, vehicles, request: body });
    expect(ready.unassigned).toEqual([]);
    expect(ready.routes.length).toBeGreaterThan(1);
    expect(ready.solver.elapsedMs).toEqual(expect.any(Number));
    expect(ready.solver.stoppedBy).toBe('work');
    expect(ready.version).toBe(3);
    first = ready;
    // The check itself catches a schedule one second off, a window missed, or an order left out.
    const broken = (change: (p: any) => void) => {
      const copy = structuredClone(ready);
      change(copy);
      return () => checkPreview(copy, { orders, vehicles, request: body });
    };
    expect(broken((p) => (p.routes[0].stops[1].arrivalAt = p.routes[0].stops[1].arrivalAt.replace(/:(\d\d)-03:00$/, (_: string, s: string) => `:${String((Number(s) + 1) % 60).padStart(2, '0')}-03:00`)))).toThrow();
    expect(broken((p) => p.routes[0].stops.pop())).toThrow();
    expect(broken((p) => (p.routes[0].endAt = p.routes[0].startAt))).toThrow();
  });

  it('gives the same routes for the same request and seed', async () => {
    const again = ok(await tenant.call(operator, 'POST', '/v1/routing/previews', { body }), 202);
    expect(again.id).not.toBe(first.id);
    const ready = await waitForPreview(tenant, operator, again.id);
    expect(ready.routes).toEqual(first.routes);
    expect(ready.unassigned).toEqual(first.unassigned);
    expect(ready.totals).toEqual(first.totals);
  });

  it('answers a repeated request (same idempotency key) with the same preview, and makes no other', async () => {
    const key = randomUUID();
    const named = { ...body, orderIds: orders.slice(0, 5).map((o) => o.id), timeLimitSeconds: undefined };
    const one = ok(await tenant.call(admin, 'POST', '/v1/routing/previews', { body: named, idempotencyKey: key }), 202);
    // Default time limit: 10 s + one per 20 orders.
    expect(one.solver.timeLimitSeconds).toBe(10);
    const twice = await tenant.call(admin, 'POST', '/v1/routing/previews', { body: named, idempotencyKey: key });
    expect(twice.status).toBe(202);
    expect(twice.headers.get('idempotent-replayed')).toBe('true');
    expect(twice.body.id).toBe(one.id);
    const ready = await waitForPreview(tenant, admin, one.id);
    checkPreview(ready, { orders, vehicles, request: named });
    const listed = ok(await tenant.call(admin, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).items.map((p: any) => p.id);
    expect(listed.filter((id: string) => id === one.id)).toHaveLength(1);
  });

  it('lists a date’s previews newest first, in pages, as summaries without their routes (decisions 18)', async () => {
    const all = ok(await tenant.call(viewer, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`));
    expect(all.items).toHaveLength(3);
    expect(all.nextCursor).toBeNull();
    const created = all.items.map((p: any) => p.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(all.items[2].id).toBe(first.id);
    const { routes: _routes, unassigned: _unassigned, ...summary } = first;
    expect(all.items[2]).toEqual(summary);
    const page1 = ok(await tenant.call(viewer, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}&limit=2`));
    expect(page1.items.map((p: any) => p.id)).toEqual(all.items.slice(0, 2).map((p: any) => p.id));
    const page2 = ok(await tenant.call(viewer, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}&limit=2&after=${page1.nextCursor}`));
    expect(page2).toEqual({ items: [all.items[2]], nextCursor: null });
    expect(ok(await tenant.call(viewer, 'GET', '/v1/routing/previews?serviceDate=2026-11-24')).items).toEqual([]);
    expect((await tenant.call(viewer, 'GET', '/v1/routing/previews')).status).toBe(400);
  });

  it('lets every role but drivers read, and only admins and operators ask', async () => {
    expect(ok(await tenant.call(viewer, 'GET', `/v1/routing/previews/${first.id}`)).routes).toEqual(first.routes);
    expect((await tenant.call(driver, 'GET', `/v1/routing/previews/${first.id}`)).status).toBe(403);
    expect((await tenant.call(driver, 'GET', `/v1/routing/previews?serviceDate=${SERVICE_DATE}`)).status).toBe(403);
    expect((await tenant.call(driver, 'POST', '/v1/routing/previews', { body })).status).toBe(403);
    expect((await tenant.call(viewer, 'POST', '/v1/routing/previews', { body })).status).toBe(403);
    const other = await TestTenant.create(stack());
    expect((await other.call(await other.member('admin'), 'GET', `/v1/routing/previews/${first.id}`)).status).toBe(404);
  });

  it('audits each change of state: asked (queued), solving, ended', async () => {
    const entries = ok(await tenant.call(admin, 'GET', `/v1/audit?resourceId=${first.id}`)).items;
    expect(entries.map((e: any) => e.action).reverse()).toEqual(['createRoutePreview', 'solveRoutePreview', 'completeRoutePreview']);
    expect(entries[2].actorId).toBe(operator.id);
  });
});
