import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { committedChanges } from '../orders/assignment-holds.ts';
import type { OrderRecord } from '../orders/order-record.ts';
import { receiptsByStop, storedReceipt } from './receipt.ts';
import type { Evidence, Route, RouteRecord, Stop } from './schemas.ts';
import { guidesByStop, readStopGuide, refreshAdopted, stopGuideView } from './stop-guides.ts';
import { ROUTE_SEQUENCE_ENTITY, sequenced, toRouteSequence } from './route-sequence.ts';

/** A stop as stored: its public shape, its evidence, and its order's link token for the projection. */
export interface StopRecord extends Stop {
  trackingToken: string;
  evidence: Evidence[];
  /** The receipt is stored inside the stop item (stops delivered before decisions 16). */
  receiptInline?: boolean;
}

/** A new, open stop for an order put on a route (an assignment, or a plan applied in place). */
export const newStopRecord = (order: OrderRecord, id: string, sequence: number, plannedArrivalAt: string | null): StopRecord => ({
  id,
  sequence,
  orderId: order.id,
  reference: order.reference,
  address: { text: order.address.text, latitude: order.address.latitude, longitude: order.address.longitude },
  state: 'pending',
  outcomeAt: null,
  evidenceCount: 0,
  failureReason: null,
  plannedArrivalAt,
  late: false,
  dispatchGuide: null,
  receivedBy: null,
  version: 1,
  trackingToken: order.trackingToken,
  evidence: [],
});

export interface PositionRecord {
  latitude: number;
  longitude: number;
  recordedAt: string;
}

export const toRouteRecord = (item: Record<string, unknown>): RouteRecord => ({
  id: item.routeId as string,
  routePlanId: item.routePlanId as string,
  vehicleRouteId: item.vehicleRouteId as string,
  workerId: item.workerId as string,
  serviceDate: item.serviceDate as string,
  depotName: item.depotName as string,
  vehicle: item.vehicle as RouteRecord['vehicle'],
  fleetVehicleId: item.fleetVehicleId as string,
  verification: item.verification as RouteRecord['verification'],
  state: item.state as RouteRecord['state'],
  summary: (item.summary as RouteRecord['summary'] | undefined) ?? null,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  startedAt: (item.startedAt as string | undefined) ?? null,
  finishedAt: (item.finishedAt as string | undefined) ?? null,
  cancelledAt: (item.cancelledAt as string | undefined) ?? null,
});

export const routeItem = (tenantId: string, route: RouteRecord) => ({
  ...opsKeys.route(tenantId, route.id),
  ...opsKeys.routeByWorker(tenantId, route.workerId, route.serviceDate, route.id),
  entity: 'route',
  tenantId,
  routeId: route.id,
  routePlanId: route.routePlanId,
  vehicleRouteId: route.vehicleRouteId,
  workerId: route.workerId,
  serviceDate: route.serviceDate,
  depotName: route.depotName,
  vehicle: route.vehicle,
  fleetVehicleId: route.fleetVehicleId,
  verification: route.verification,
  state: route.state,
  summary: route.summary ?? undefined,
  version: route.version,
  createdAt: route.createdAt,
  updatedAt: route.updatedAt,
  startedAt: route.startedAt ?? undefined,
  finishedAt: route.finishedAt ?? undefined,
  cancelledAt: route.cancelledAt ?? undefined,
});

export const toStopRecord = (item: Record<string, unknown>): StopRecord => ({
  id: item.stopId as string,
  sequence: item.sequence as number,
  orderId: item.orderId as string,
  reference: item.reference as string,
  address: item.address as Stop['address'],
  state: item.state as Stop['state'],
  outcomeAt: (item.outcomeAt as string | undefined) ?? null,
  evidenceCount: (item.evidenceCount as number | undefined) ?? 0,
  failureReason: (item.failureReason as string | undefined) ?? null,
  plannedArrivalAt: (item.plannedArrivalAt as string | undefined) ?? null,
  late: (item.late as boolean | undefined) ?? false,
  // Its own item in the route partition (stop-guides.ts); readers that have it fill it in.
  dispatchGuide: null,
  // Likewise the receipt (receipt.ts); a stop stored before decisions 16 may hold it inline.
  receivedBy: storedReceipt(item.receivedBy),
  version: item.version as number,
  trackingToken: item.trackingToken as string,
  evidence: (item.evidence as Evidence[] | undefined) ?? [],
  ...(item.receivedBy ? { receiptInline: true } : {}),
});

export const stopItem = (tenantId: string, routeId: string, stop: StopRecord) => ({
  ...opsKeys.stop(tenantId, routeId, stop.id),
  entity: 'stop',
  tenantId,
  routeId,
  stopId: stop.id,
  sequence: stop.sequence,
  orderId: stop.orderId,
  reference: stop.reference,
  address: stop.address,
  state: stop.state,
  outcomeAt: stop.outcomeAt ?? undefined,
  evidenceCount: stop.evidenceCount,
  failureReason: stop.failureReason ?? undefined,
  plannedArrivalAt: stop.plannedArrivalAt ?? undefined,
  late: stop.late || undefined,
  // The receipt has an item of its own (receiptWrite); a rewrite of an old stop keeps the one it holds.
  receivedBy: stop.receivedBy && stop.receiptInline ? stop.receivedBy : undefined,
  evidence: stop.evidence,
  trackingToken: stop.trackingToken,
  version: stop.version,
});

export const toStop = ({ trackingToken: _t, evidence: _e, receiptInline: _r, ...stop }: StopRecord): Stop => stop;

export const findRoute = async (tenantId: string, routeId: string): Promise<RouteRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.route(tenantId, routeId), ConsistentRead: true }));
  return Item ? toRouteRecord(Item) : undefined;
};

export const getRouteRecord = async (tenantId: string, routeId: string): Promise<RouteRecord> => {
  const route = await findRoute(tenantId, routeId);
  if (!route) throw new NotFoundError('No route with this id.');
  return route;
};

/**
 * A stop item as a plan applied in place leaves it until the change is settled (decisions 17,
 * route-change.ts): a new stop is `stagedFor` the change, a kept or removed one carries the
 * change's `next` values. Once the change's claim reads `assigned` they stand; until then (or
 * if the change never commits) the stop reads as it was and a staged one does not exist.
 */
interface StagedChange {
  planId: string;
  vehicleRouteId: string;
}
type NextValues = StagedChange & { sequence?: number; plannedArrivalAt?: string | null; removed?: boolean };

export const resolveStopItems = async (tenantId: string, routeId: string, items: Record<string, unknown>[]): Promise<Record<string, unknown>[]> => {
  const staged = items.filter((i) => i.entity === 'stop' && (i.stagedFor || i.next));
  if (staged.length === 0) return items;
  const committed = await committedChanges(
    tenantId,
    staged.map((i) => ({ ...((i.stagedFor ?? i.next) as StagedChange), routeId })),
  );
  const out: Record<string, unknown>[] = [];
  for (const item of items) {
    if (item.entity !== 'stop') {
      out.push(item);
      continue;
    }
    const { stagedFor, next, ...stop } = item as Record<string, unknown> & { stagedFor?: StagedChange; next?: NextValues };
    if (stagedFor && !committed({ ...stagedFor, routeId })) continue;
    if (next && committed({ ...next, routeId })) {
      if (next.removed) continue;
      out.push({ ...stop, sequence: next.sequence ?? stop.sequence, plannedArrivalAt: next.plannedArrivalAt ?? undefined });
      continue;
    }
    out.push(stop);
  }
  return out;
};

/**
 * The route's partition: its stops in sequence order and its last position. Given the route's
 * state, a cancelled route's stops still stored pending read as the removed stops they are
 * (its cancel writes them after the route, route-cancel.ts).
 */
export const readRoutePartition = async (tenantId: string, routeId: string, routeState?: RouteRecord['state']): Promise<{ stops: StopRecord[]; position: PositionRecord | null }> => {
  const items: Record<string, unknown>[] = [];
  for await (const item of queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': opsKeys.routePartition(tenantId, routeId) },
    ConsistentRead: true,
  })) {
    items.push(item);
  }
  items.splice(0, items.length, ...(await resolveStopItems(tenantId, routeId, items)));
  const guides = await refreshAdopted(tenantId, guidesByStop(items));
  const receipts = receiptsByStop(items, new Date());
  const order = toRouteSequence(items.find((i) => i.entity === ROUTE_SEQUENCE_ENTITY));
  const stops = sequenced(items.filter((i) => i.entity === 'stop').map(toStopRecord), order)
    .map((stop) => ({ ...stop, dispatchGuide: stopGuideView(guides.get(stop.id)) }))
    .map((stop) => ({ ...stop, receivedBy: receipts.get(stop.id) ?? stop.receivedBy }))
    .map((stop) => (routeState === 'cancelled' && stop.state === 'pending' ? { ...stop, state: 'removed' as const, version: stop.version + 1 } : stop))
    .sort((a, b) => a.sequence - b.sequence);
  const position = items.find((i) => i.entity === 'route-position');
  return { stops, position: position ? { latitude: position.latitude as number, longitude: position.longitude as number, recordedAt: position.recordedAt as string } : null };
};

export const getStopRecord = async (tenantId: string, routeId: string, stopId: string): Promise<StopRecord> => {
  const [{ Item: stored }, order] = await Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.stop(tenantId, routeId, stopId), ConsistentRead: true })),
    table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.routeSequence(tenantId, routeId), ConsistentRead: true })),
  ]);
  // A stop staged by a plan applied in place reads as that change left it (or not at all).
  const [Item] = stored ? await resolveStopItems(tenantId, routeId, [stored]) : [];
  if (!Item) throw new NotFoundError('No stop with this id on this route.');
  const [stop] = sequenced([toStopRecord(Item)], toRouteSequence(order.Item));
  return { ...stop, dispatchGuide: await readStopGuide(tenantId, routeId, stopId) };
};

export const withStops = (route: RouteRecord, stops: StopRecord[]): Route => ({ ...route, stops: stops.map(toStop) });
