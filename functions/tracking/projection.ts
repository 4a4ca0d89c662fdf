import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { DEFAULT_TIME_ZONE, DEFAULT_TRACKING_SPEED_KMH, DEFAULT_TRACKING_STOP_MINUTES, getTenant } from '../../shared/tenancy/tenants.ts';
import { getMemberById } from '../../shared/tenancy/members.ts';
import { findRoute, readRoutePartition, type StopRecord } from '../field/records.ts';
import { findOrder, findStoredOrders, type OrderRecord } from '../orders/records.ts';
import { legSeconds } from '../../shared/planning/travel.ts';
import { relativeTo, round3, type Point } from './geo.ts';
import { LINK_LIFETIME_AFTER_CLOSE_SECONDS } from './settings.ts';
import type { ViewRecord } from './view-record.ts';
import { trackedGuideNumber } from './guide-views.ts';
import { inScope, type RouteScope } from './route-scope.ts';
import { plannedWindowOf } from './planned-window.ts';

interface TenantSettings {
  name: string;
  timeZone: string;
  speedKmh: number;
  minutesPerStop: number;
}

const tenantSettings = async (tenantId: string): Promise<TenantSettings> => {
  const tenant = await getTenant(tenantId);
  return {
    name: tenant?.name ?? '',
    timeZone: tenant?.timeZone ?? DEFAULT_TIME_ZONE,
    speedKmh: tenant?.trackingSpeedKmh ?? DEFAULT_TRACKING_SPEED_KMH,
    minutesPerStop: tenant?.trackingStopMinutes ?? DEFAULT_TRACKING_STOP_MINUTES,
  };
};

/** Writes a view unless one built from a later reading is already there (two consumers racing). */
const putView = async (view: ViewRecord): Promise<void> => {
  const expiresAt = view.closedAt ? Math.floor(Date.parse(view.closedAt) / 1000) + LINK_LIFETIME_AFTER_CLOSE_SECONDS + 86_400 : undefined;
  try {
    await table().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...opsKeys.trackingView(view.token), entity: 'tracking-view', ...view, expiresAt },
        ConditionExpression: 'attribute_not_exists(pk) OR builtAt <= :builtAt',
        ExpressionAttributeValues: { ':builtAt': view.builtAt },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
};

const base = (order: Pick<OrderRecord, 'id' | 'reference' | 'serviceDate'>, token: string, tenantId: string, tenant: TenantSettings, builtAt: string) => ({
  token,
  tenantId,
  orderId: order.id,
  companyName: tenant.name,
  timeZone: tenant.timeZone,
  reference: order.reference,
  serviceDate: order.serviceDate,
  builtAt,
});

const empty = { stopsBefore: null, driverFirstName: null, position: null, travelSeconds: null, relative: null, closedAt: null, dispatchGuideNumber: null, plannedArrivalAt: null, plannedWindow: null } as const;

interface OrderView {
  view: ViewRecord | null;
  routeId: string | null;
  stopId: string | null;
}

/** The view of an order on no route (pending, or cancelled before it was planned); else the order's route and stop. */
export const viewOfOrder = async (tenantId: string, orderId: string, builtAt: string): Promise<OrderView> => {
  const order = await findOrder(tenantId, orderId);
  if (!order) return { view: null, routeId: null, stopId: null };
  if (order.routeId) return { view: null, routeId: order.routeId, stopId: order.stopId };
  const tenant = await tenantSettings(tenantId);
  const cancelled = order.state === 'cancelled';
  return { view: { ...base(order, order.trackingToken, tenantId, tenant, builtAt), ...empty, phase: cancelled ? 'cancelled' : 'pending', closedAt: cancelled ? order.cancelledAt : null }, routeId: null, stopId: null };
};

export const projectOrder = async (tenantId: string, orderId: string, builtAt = new Date().toISOString()): Promise<Omit<OrderView, 'view'>> => {
  const { view, routeId, stopId } = await viewOfOrder(tenantId, orderId, builtAt);
  if (view) await putView(view);
  return { routeId, stopId };
};

/**
 * The travel model of route planning (decisions 15): each leg's time rounded up to the second,
 * then the minutes spent at each stop before the recipient's.
 */
const travelSeconds = (from: Point, path: Point[], tenant: TenantSettings): number => {
  let seconds = 0;
  let at = from;
  for (const next of path) {
    seconds += legSeconds(at, next, tenant.speedKmh);
    at = next;
  }
  const stopsBefore = path.length - 1;
  return seconds + stopsBefore * tenant.minutesPerStop * 60;
};

/**
 * The views of a route's orders, from the route, its stops and its last position as they are now:
 * every view, or those the changes seen can have moved (`scope`, route-scope.ts).
 */
export const viewsOfRoute = async (tenantId: string, routeId: string, builtAt: string, scope?: RouteScope): Promise<ViewRecord[]> => {
  const route = await findRoute(tenantId, routeId);
  if (!route) return [];
  const [{ stops, position }, tenant] = await Promise.all([readRoutePartition(tenantId, routeId), tenantSettings(tenantId)]);
  const moving = route.state === 'started';
  const driver = moving ? await getMemberById(tenantId, route.workerId) : undefined;
  const open = stops.filter((s) => s.state === 'pending');
  // A removed stop's order went back to pending: its own view is the order's now. A cancelled
  // route's stops still stored pending are removed ones its cancel has not written back yet.
  const released = route.state === 'cancelled' ? open.filter((stop) => inScope(scope, stop, route.state)) : [];
  const orderViews = await Promise.all(released.map(async (stop) => (await viewOfOrder(tenantId, stop.orderId, builtAt)).view));
  // Before the start a planned stop shows its window inside its order's time windows (decisions 17).
  const planned = moving || route.state !== 'assigned' ? [] : open.filter((stop) => stop.plannedArrivalAt && inScope(scope, stop, route.state));
  const windowsOf = planned.length > 0 ? await findStoredOrders(tenantId, planned.map((s) => s.orderId)) : new Map<string, OrderRecord>();
  return [
    ...stops
      .filter((stop) => stop.state !== 'removed' && inScope(scope, stop, route.state))
      .filter((stop) => route.state !== 'cancelled' || stop.state !== 'pending')
      .map((stop) => viewOfStop(stop, open, { moving, driverFirstName: driver?.firstName ?? null, position, tenant, tenantId, builtAt, serviceDate: route.serviceDate, timeWindows: windowsOf.get(stop.orderId)?.timeWindows ?? [] })),
    ...orderViews.filter((view): view is ViewRecord => view !== null),
  ];
};

export const projectRoute = async (tenantId: string, routeId: string, builtAt = new Date().toISOString(), scope?: RouteScope): Promise<void> => {
  for (const view of await viewsOfRoute(tenantId, routeId, builtAt, scope)) await putView(view);
};

const viewOfStop = (
  stop: StopRecord,
  open: StopRecord[],
  context: {
    moving: boolean;
    driverFirstName: string | null;
    position: (Point & { recordedAt: string }) | null;
    tenant: TenantSettings;
    tenantId: string;
    builtAt: string;
    serviceDate: string;
    timeWindows: OrderRecord['timeWindows'];
  },
): ViewRecord => {
  const head = {
    ...base({ id: stop.orderId, reference: stop.reference, serviceDate: context.serviceDate }, stop.trackingToken, context.tenantId, context.tenant, context.builtAt),
    dispatchGuideNumber: trackedGuideNumber(stop.dispatchGuide),
  };
  if (stop.state !== 'pending') {
    const phase = stop.state === 'delivered' ? 'delivered' : stop.state === 'failed' ? 'failed' : 'cancelled';
    return { ...empty, ...head, phase, closedAt: stop.outcomeAt };
  }
  const before = open.filter((s) => s.sequence < stop.sequence);
  if (!context.moving) {
    const plannedWindow = stop.plannedArrivalAt ? plannedWindowOf(stop.plannedArrivalAt, context.timeWindows, context.serviceDate, context.tenant.timeZone) : null;
    return { ...empty, ...head, phase: 'pending', stopsBefore: before.length, plannedArrivalAt: stop.plannedArrivalAt, plannedWindow };
  }
  const destination = { latitude: stop.address.latitude, longitude: stop.address.longitude };
  const position = context.position;
  return {
    ...empty,
    ...head,
    phase: 'moving',
    stopsBefore: before.length,
    driverFirstName: context.driverFirstName,
    position: position ? { latitude: round3(position.latitude), longitude: round3(position.longitude), recordedAt: position.recordedAt } : null,
    travelSeconds: position ? travelSeconds(position, [...before.map((s) => s.address), destination], context.tenant) : null,
    relative: position ? relativeTo(destination, position) : null,
  };
};
