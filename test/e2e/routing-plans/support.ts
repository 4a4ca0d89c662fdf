import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { seedOrders } from '../../support/seed-orders.ts';
import { previewItem } from '../../../functions/routing/preview-record.ts';
import type { Preview, PreviewState } from '../../../functions/routing/preview-schemas.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { created, orderBody } from '../operations/support.ts';

export const SERVICE_DATE = '2026-11-23';

/** Real orders through the API, one per point. */
export const makeOrders = async (tenant: TestTenant, operator: TestMember, points: [number, number][], serviceDate = SERVICE_DATE) => {
  const orders: { id: string; reference: string; address: { latitude: number; longitude: number } }[] = [];
  for (const [i, [lat, lng]] of points.entries()) {
    orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody(`PED-${i + 1}-${newId().slice(-6)}`, lat, lng, serviceDate) })));
  }
  return orders;
};

const at = (minutes: number) => {
  const hh = String(8 + Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${SERVICE_DATE}T${hh}:${mm}:00-03:00`;
};

/**
 * A preview as the worker would store it, written straight to the table (the tests of plans and
 * of the map do not depend on the worker): routes of the given order ids in stop order, each
 * stop ten minutes after the last, and the unassigned ones with a no_room reason.
 */
export const previewOf = (
  routes: string[][],
  unassigned: string[],
  options: { depotId?: string; state?: PreviewState; createdAt?: string; serviceDate?: string; routeIds?: (string | null)[] } = {},
): Preview => {
  const state = options.state ?? 'ready';
  const ready = state === 'ready';
  const createdAt = options.createdAt ?? new Date().toISOString();
  const previewRoutes = routes.map((orderIds, r) => ({
    vehicleRouteId: `V${r + 1}`,
    routeId: options.routeIds?.[r] ?? null,
    vehicleId: newId(),
    label: `Camión ${r + 1}`,
    plate: `KXPT${String(10 + r).padStart(2, '0')}`,
    startAt: at(0),
    endAt: at(orderIds.length * 10 + 10),
    distanceMeters: 4_000 * orderIds.length + 2_345,
    durationSeconds: (orderIds.length * 10 + 10) * 60,
    load: { weightKg: 0, volumeM3: 0 },
    stops: orderIds.map((orderId, i) => ({
      sequence: i + 1,
      orderId,
      reference: `PED-${r + 1}-${i + 1}`,
      arrivalAt: at(i * 10 + 5),
      serviceStartAt: at(i * 10 + 5),
      departureAt: at(i * 10 + 10),
      waitSeconds: 0,
      distanceMetersFromPrevious: 4_000,
    })),
  }));
  const assignedCount = routes.flat().length;
  return {
    id: newId(),
    serviceDate: options.serviceDate ?? SERVICE_DATE,
    depotId: options.depotId ?? newId(),
    objective: 'duration',
    state,
    failure: state === 'failed' ? { code: 'solver_timeout', message: 'The solver did not finish.' } : null,
    routes: ready ? previewRoutes : [],
    unassigned: ready ? unassigned.map((orderId) => ({ orderId, reasons: [{ code: 'no_room' as const, message: 'No route had room for it.' }] })) : [],
    totals: ready
      ? {
          routeCount: previewRoutes.length,
          assignedCount,
          unassignedCount: unassigned.length,
          distanceMeters: previewRoutes.reduce((s, r) => s + r.distanceMeters, 0),
          durationSeconds: previewRoutes.reduce((s, r) => s + r.durationSeconds, 0),
        }
      : null,
    solver: { name: 'test', version: '0', seed: 1, timeLimitSeconds: 10, elapsedMs: ready ? 120 : null, travelModel: 'haversine/25kmh', stoppedBy: ready ? ('work' as const) : null },
    earliestStartAt: null,
    version: ready ? 3 : 1,
    createdAt,
    updatedAt: createdAt,
  };
};

export const storePreview = async (tenantId: string, preview: Preview): Promise<Preview> => {
  await runAs(OPERATOR, () => table().send(new PutCommand({ TableName: tableName(), Item: previewItem(tenantId, preview) })));
  return preview;
};

export const makeDepot = async (tenant: TestTenant, admin: TestMember, name = 'Bodega Quilicura') =>
  created(await tenant.call(admin, 'POST', '/v1/routing/depots', { body: { name, address: { text: 'Av. Presidente Eduardo Frei Montalva 9950, Quilicura', latitude: -33.3602, longitude: -70.7271 } } }));

/**
 * A day as a dispatcher sees it: `routeCount` routes, each a cluster of stops around Santiago in
 * a sweep around its centre (so the line reads as a tour), and some unassigned orders between.
 * Orders are made through the API, `concurrency` at a time.
 */
export const plannedDay = async (
  tenant: TestTenant,
  operator: TestMember,
  depotId: string,
  options: { routeCount: number; stopsPerRoute: number; unassignedCount: number; concurrency?: number },
) => {
  let seed = 11;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const clusters = Array.from({ length: options.routeCount }, (_, r) => {
    const angle = (r / options.routeCount) * 2 * Math.PI + 0.3;
    const ring = 0.06 + 0.08 * ((r * 7) % 3) / 2;
    const [cLat, cLng] = [-33.46 + Math.sin(angle) * ring, -70.64 + Math.cos(angle) * ring * 1.2];
    const stops = Array.from({ length: options.stopsPerRoute }, (): [number, number] => [cLat + (random() - 0.5) * 0.04, cLng + (random() - 0.5) * 0.05]);
    return stops.sort((a, b) => Math.atan2(a[0] - cLat, a[1] - cLng) - Math.atan2(b[0] - cLat, b[1] - cLng));
  });
  const loose = Array.from({ length: options.unassignedCount }, (): [number, number] => [-33.46 + (random() - 0.5) * 0.3, -70.64 + (random() - 0.5) * 0.36]);
  const points = [...clusters.flat(), ...loose];
  // Orders as the create stores them, written straight to the table: a thousand creates through
  // the API (each with its event, audit entry and tracking view) cost minutes of a loaded run and
  // test nothing these files look at.
  const ids = (await seedOrders(tenant.id, points, SERVICE_DATE)).map((order) => order.id);
  const routes = clusters.map((_, r) => ids.slice(r * options.stopsPerRoute, (r + 1) * options.stopsPerRoute));
  const unassigned = ids.slice(options.routeCount * options.stopsPerRoute);
  return storePreview(tenant.id, previewOf(routes, unassigned, { depotId }));
};
