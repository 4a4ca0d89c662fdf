import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

export const SERVICE_DATE = '2026-11-23';
/** America/Santiago on 2026-11-23 (summer time): every date-time of a preview carries this offset. */
export const OFFSET = '-03:00';
export const DEPOT = { latitude: -33.3667, longitude: -70.7333 };

export const ok = (response: ApiResponse, status = 200) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

let counter = 0;
export const plate = () => `PRV${String(++counter).padStart(3, '0')}${Math.random().toString(36).slice(2, 5).toUpperCase()}`;

export interface OrderInput {
  latitude: number;
  longitude: number;
  timeWindows?: { from: string; to: string }[];
  serviceMinutes?: number;
  load?: { weightKg: number; volumeM3: number };
  skills?: string[];
  serviceDate?: string;
}

export const makeOrder = async (tenant: TestTenant, operator: TestMember, input: OrderInput) =>
  ok(
    await tenant.call(operator, 'POST', '/v1/distribution/orders', {
      body: {
        reference: `PRV-${++counter}`,
        recipient: { name: 'Juana Soto', phone: '+56 9 1234 5678', email: 'juana@example.cl' },
        address: { text: 'Av. Recoleta 500, Recoleta', latitude: input.latitude, longitude: input.longitude },
        serviceDate: input.serviceDate ?? SERVICE_DATE,
        ...(input.timeWindows ? { timeWindows: input.timeWindows } : {}),
        ...(input.serviceMinutes !== undefined ? { serviceMinutes: input.serviceMinutes } : {}),
        ...(input.load ? { load: input.load } : {}),
        ...(input.skills ? { skills: input.skills } : {}),
      },
    }),
    201,
  );

export const makeVehicle = async (tenant: TestTenant, admin: TestMember, input: { capacity?: { weightKg: number | null; volumeM3: number | null }; skills?: string[]; active?: boolean } = {}) =>
  ok(await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: plate(), label: 'Camión', ...input } }), 201);

export const makeDepot = async (tenant: TestTenant, admin: TestMember) =>
  ok(await tenant.call(admin, 'POST', '/v1/routing/depots', { body: { name: 'Bodega Quilicura', address: { text: 'Av. Lo Boza 120, Quilicura', ...DEPOT } } }), 201);

/** Reads the preview until `done` holds (by default: it ended), as a client polls after the 202. */
export const waitForPreview = async (tenant: TestTenant, member: TestMember, id: string, done: (p: any) => boolean = (p) => p.state === 'ready' || p.state === 'failed', timeoutMs = WAIT_LIMIT_MS) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const preview = ok(await tenant.call(member, 'GET', `/v1/routing/previews/${id}`));
    if (done(preview)) return preview;
    if (Date.now() > deadline) throw new Error(`preview ${id} still ${preview.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

// The travel model, written again from decisions 15 (not imported), so the check is independent.
const R = 6_371_008.8;
const toRad = (d: number) => (d * Math.PI) / 180;
const meters = (a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) => {
  const h = Math.sin(toRad(b.latitude - a.latitude) / 2) ** 2 + Math.cos(toRad(a.latitude)) * Math.cos(toRad(b.latitude)) * Math.sin(toRad(b.longitude - a.longitude) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
};
const seconds = (a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }, speedKmh: number) => Math.ceil(meters(a, b) / (speedKmh / 3.6));
const at = (iso: string) => Date.parse(iso) / 1000;
const clock = (hhmm: string) => at(`${SERVICE_DATE}T${hhmm}:00${OFFSET}`);

export interface CheckInput {
  orders: any[];
  vehicles: any[];
  request: { vehicles: { vehicleId: string; shiftStart: string; shiftEnd: string; maxStops?: number }[]; orderIds?: string[] };
  speedKmh?: number;
}

/**
 * Every rule of decisions 15 on a ready preview, recomputed from the orders, the vehicles and
 * the travel model: nothing the service computed is trusted beyond what is checked here.
 */
export const checkPreview = (preview: any, input: CheckInput) => {
  const speed = input.speedKmh ?? 25;
  const orders = new Map(input.orders.map((o) => [o.id, o]));
  const vehicles = new Map(input.vehicles.map((v) => [v.id, v]));
  const asked = new Map(input.request.vehicles.map((v) => [v.vehicleId, v]));
  expect(preview.state).toBe('ready');
  expect(preview.failure).toBeNull();
  const seen: string[] = [];
  const usedVehicles = new Set<string>();
  const dateTimes: string[] = [];
  preview.routes.forEach((route: any, r: number) => {
    expect(route.vehicleRouteId).toBe(`V${r + 1}`);
    expect(usedVehicles.has(route.vehicleId), 'one route per vehicle').toBe(false);
    usedVehicles.add(route.vehicleId);
    const shift = asked.get(route.vehicleId)!;
    const vehicle = vehicles.get(route.vehicleId)!;
    expect(shift, 'a vehicle of the request').toBeDefined();
    expect(route.stops.length).toBeGreaterThan(0);
    expect(route.stops.length).toBeLessThanOrEqual(shift.maxStops ?? 300);
    expect(at(route.startAt)).toBeGreaterThanOrEqual(clock(shift.shiftStart));
    // As late as the schedule allows: leaving any later would move the first service start.
    expect(route.stops[0].waitSeconds).toBe(0);
    dateTimes.push(route.startAt, route.endAt);
    let place = DEPOT;
    let departure = at(route.startAt);
    let distance = 0;
    let weight = 0;
    let volume = 0;
    for (const stop of route.stops) {
      const order = orders.get(stop.orderId);
      expect(order, 'an order of the preview').toBeDefined();
      seen.push(stop.orderId);
      dateTimes.push(stop.arrivalAt, stop.serviceStartAt, stop.departureAt);
      const leg = Math.round(meters(place, order.address));
      expect(stop.distanceMetersFromPrevious).toBe(leg);
      distance += leg;
      expect(at(stop.arrivalAt)).toBe(departure + seconds(place, order.address, speed));
      const start = at(stop.serviceStartAt);
      expect(stop.waitSeconds).toBe(start - at(stop.arrivalAt));
      if (order.timeWindows.length === 0) {
        expect(start).toBe(at(stop.arrivalAt));
      } else {
        const window = order.timeWindows.find((w: any) => clock(w.from) <= start && start <= clock(w.to));
        expect(window, `order ${order.id} served within one of its windows`).toBeDefined();
        expect(start).toBe(Math.max(at(stop.arrivalAt), clock(window.from)));
      }
      expect(at(stop.departureAt)).toBe(start + order.serviceMinutes * 60);
      for (const skill of order.skills) expect(vehicle.skills).toContain(skill);
      weight += order.load.weightKg;
      volume += order.load.volumeM3;
      place = order.address;
      departure = at(stop.departureAt);
    }
    const back = Math.round(meters(place, DEPOT));
    expect(route.distanceMeters).toBe(distance + back);
    expect(at(route.endAt)).toBe(departure + seconds(place, DEPOT, speed));
    expect(at(route.endAt)).toBeLessThanOrEqual(clock(shift.shiftEnd));
    expect(route.durationSeconds).toBe(at(route.endAt) - at(route.startAt));
    expect(route.load.weightKg).toBeCloseTo(weight, 6);
    expect(route.load.volumeM3).toBeCloseTo(volume, 6);
    if (vehicle.capacity.weightKg !== null) expect(weight).toBeLessThanOrEqual(vehicle.capacity.weightKg + 1e-9);
    if (vehicle.capacity.volumeM3 !== null) expect(volume).toBeLessThanOrEqual(vehicle.capacity.volumeM3 + 1e-9);
  });
  for (const u of preview.unassigned) {
    seen.push(u.orderId);
    expect(u.reasons.length).toBeGreaterThan(0);
  }
  const expected = input.request.orderIds ?? input.orders.map((o) => o.id);
  expect([...seen].sort(), 'every order exactly once').toEqual([...expected].sort());
  for (const text of dateTimes) expect(text.endsWith(OFFSET), text).toBe(true);
  expect(preview.totals).toEqual({
    routeCount: preview.routes.length,
    assignedCount: preview.routes.reduce((n: number, r: any) => n + r.stops.length, 0),
    unassignedCount: preview.unassigned.length,
    distanceMeters: preview.routes.reduce((n: number, r: any) => n + r.distanceMeters, 0),
    durationSeconds: preview.routes.reduce((n: number, r: any) => n + r.durationSeconds, 0),
  });
};
