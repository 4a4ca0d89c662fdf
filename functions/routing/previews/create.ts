import { nowIso } from '../../../shared/clock.ts';
import { NotFoundError, UnprocessableError, type FieldIssue } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { travelModelName } from '../../../shared/planning/travel.ts';
import { planningEngine } from '../../../shared/planning/engine.ts';
import { tableName } from '../../../shared/table/client.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import { DEFAULT_PLANNING_LEAD_MINUTES, DEFAULT_TIME_ZONE, DEFAULT_TRACKING_SPEED_KMH, getTenant } from '../../../shared/tenancy/tenants.ts';
import { findVehicles } from '../../fleet/vehicles.ts';
import { findOrders } from '../../orders/records.ts';
import { getDepot } from '../depots.ts';
import { MAX_PREVIEW_ORDERS, type CreatePreviewBody, type Preview } from '../preview-schemas.ts';
import { previewItem } from '../preview-record.ts';
import { COUNTED_FLAG, takeActivePlace } from './active-limit.ts';
import { pendingOrdersExceed } from './day-count.ts';
import { unplannedPendingOrderIds } from './day-orders.ts';
import { earliestStartOf } from './earliest-start.ts';
import { deadlineOf, queuedDue } from './lifecycle.ts';
import { checkRoutesToChange } from './route-changes.ts';
import { defaultTimeLimitSeconds, type PreviewRequest } from './request.ts';

const invalid = (issues: FieldIssue[]) => new UnprocessableError('The preview names what it cannot plan.', 'invalid_preview', issues);

const findDepot = async (tenantId: string, depotId: string) => {
  try {
    return await getDepot(tenantId, depotId);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
};

/**
 * The orders: those named (each pending, of the date, once; or on a route the preview changes),
 * or the day's unplanned pending ones.
 */
const checkOrders = async (tenantId: string, body: CreatePreviewBody, issues: FieldIssue[], onRoutes: ReadonlySet<string> = new Set()): Promise<string[]> => {
  if (!body.orderIds) {
    // Counted first: a day of 5,000 orders is refused without reading them (decisions 18).
    const day = await pendingOrdersExceed(tenantId, body.serviceDate, MAX_PREVIEW_ORDERS);
    if (day.exceeds) {
      issues.push({ path: 'body.orderIds', message: `more than ${MAX_PREVIEW_ORDERS} pending orders of ${body.serviceDate}: name at most ${MAX_PREVIEW_ORDERS}` });
      return [];
    }
    const ids = await unplannedPendingOrderIds(tenantId, body.serviceDate);
    // The index is read eventually consistent: each order found is read again as it is now.
    const orders = await findOrders(tenantId, ids);
    const pending = ids.filter((id) => orders.get(id)?.state === 'pending' && orders.get(id)?.serviceDate === body.serviceDate);
    if (pending.length === 0 && onRoutes.size === 0) issues.push({ path: 'body.orderIds', message: `no pending order of ${body.serviceDate} is left to plan` });
    else if (pending.length > MAX_PREVIEW_ORDERS) issues.push({ path: 'body.orderIds', message: `${pending.length} pending orders of ${body.serviceDate}: name at most ${MAX_PREVIEW_ORDERS}` });
    return pending;
  }
  const orders = await findOrders(tenantId, body.orderIds);
  const seen = new Set<string>();
  body.orderIds.forEach((id, i) => {
    const path = `body.orderIds.${i}`;
    const order = orders.get(id);
    if (seen.has(id)) issues.push({ path, message: 'this order appears more than once' });
    else if (!order) issues.push({ path, message: 'no order with this id' });
    else if (order.state !== 'pending' && !onRoutes.has(id)) issues.push({ path, message: `the order is ${order.state}, not pending` });
    else if (order.serviceDate !== body.serviceDate) issues.push({ path, message: `the order is for ${order.serviceDate}` });
    seen.add(id);
  });
  return body.orderIds;
};

/** Each vehicle a registry vehicle, active, named once, with a shift that ends after it starts; its capacity and skills copied. */
const checkVehicles = async (tenantId: string, body: CreatePreviewBody, issues: FieldIssue[]): Promise<PreviewRequest['vehicles']> => {
  const registry = await findVehicles(tenantId, body.vehicles.map((v) => v.vehicleId));
  const seen = new Set<string>();
  const vehicles: PreviewRequest['vehicles'] = [];
  body.vehicles.forEach((entry, i) => {
    const vehicle = registry.get(entry.vehicleId);
    const path = `body.vehicles.${i}`;
    if (seen.has(entry.vehicleId)) issues.push({ path: `${path}.vehicleId`, message: 'this vehicle appears more than once' });
    else if (!vehicle) issues.push({ path: `${path}.vehicleId`, message: 'no vehicle with this id in the registry' });
    else if (!vehicle.active) issues.push({ path: `${path}.vehicleId`, message: 'the vehicle is not active' });
    seen.add(entry.vehicleId);
    if (entry.shiftStart >= entry.shiftEnd) issues.push({ path: `${path}.shiftEnd`, message: 'must be later than shiftStart' });
    if (vehicle) {
      vehicles.push({
        vehicleId: entry.vehicleId,
        shiftStart: entry.shiftStart,
        shiftEnd: entry.shiftEnd,
        maxStops: entry.maxStops,
        capacity: { weightKg: vehicle.capacity.weightKg, volumeM3: vehicle.capacity.volumeM3 },
        skills: [...vehicle.skills],
        label: vehicle.label,
        plate: vehicle.plate,
      });
    }
  });
  return vehicles;
};

/**
 * A new preview, `queued` (decisions 15): every check made here, all issues in one 422, so the
 * worker solves the stored request as it is. The chain commits it with its audit entry; the
 * message to the worker is sent after the commit (the sweeper sends it again if that is lost).
 */
export const createPreview = async (tenantId: string, body: CreatePreviewBody, now: Date): Promise<{ preview: Preview; writes: Write[] }> => {
  const issues: FieldIssue[] = [];
  const changing = await checkRoutesToChange(tenantId, body, issues);
  const onRoutes = new Set(changing.orderIds);
  const [tenant, depot, chosen, vehicles] = await Promise.all([
    getTenant(tenantId),
    findDepot(tenantId, body.depotId),
    checkOrders(tenantId, body, issues, onRoutes),
    checkVehicles(tenantId, body, issues),
  ]);
  // The changed routes' orders join those named or found (each once).
  const orderIds = [...chosen, ...changing.orderIds.filter((id) => !chosen.includes(id))];
  if (!depot) issues.unshift({ path: 'body.depotId', message: 'no depot with this id' });
  if (orderIds.length > MAX_PREVIEW_ORDERS && chosen.length <= MAX_PREVIEW_ORDERS) issues.push({ path: 'body.routeIds', message: `their orders and those named make ${orderIds.length}: at most ${MAX_PREVIEW_ORDERS}` });
  if (issues.length > 0 || !depot) throw invalid(issues.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })));

  const at = nowIso(now);
  const timeZone = tenant?.timeZone ?? DEFAULT_TIME_ZONE;
  const earliest = earliestStartOf(body.serviceDate, now, timeZone, tenant?.planningLeadMinutes ?? DEFAULT_PLANNING_LEAD_MINUTES);
  const speedKmh = tenant?.trackingSpeedKmh ?? DEFAULT_TRACKING_SPEED_KMH;
  const timeLimitSeconds = body.timeLimitSeconds ?? defaultTimeLimitSeconds(orderIds.length);
  const preview: Preview = {
    id: newId(),
    serviceDate: body.serviceDate,
    depotId: body.depotId,
    objective: body.objective,
    state: 'queued',
    failure: null,
    routes: [],
    unassigned: [],
    totals: null,
    solver: { name: planningEngine().name, version: planningEngine().version, seed: body.seed, timeLimitSeconds, elapsedMs: null, travelModel: travelModelName(speedKmh), stoppedBy: null },
    earliestStartAt: earliest?.at ?? null,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  const request: PreviewRequest = {
    orderIds,
    vehicles,
    depot: { latitude: depot.address.latitude, longitude: depot.address.longitude },
    objective: body.objective,
    seed: body.seed,
    timeLimitSeconds,
    speedKmh,
    timeZone,
    routes: changing.routes,
    earliestStart: earliest?.seconds ?? null,
  };
  const deadlineAt = deadlineOf(at, timeLimitSeconds);
  const item = previewItem(tenantId, preview, { request, attempt: 0, deadlineAt, [COUNTED_FLAG]: true, ...queuedDue(preview.id, now, deadlineAt) });
  return { preview, writes: [{ item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } }, takeActivePlace(tenantId)] };
};
