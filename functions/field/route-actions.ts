import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { StateConflictError, UnprocessableError, VersionMismatchError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { orderStateWrite } from '../orders/orders.ts';
import { findOrders } from '../orders/records.ts';
import { assertMayAct, assertMayRead } from './access.ts';
import { getRouteRecord, readRoutePartition, stopItem, withStops } from './records.ts';
import { requireRouteState, routeStartedCheck, routeWrite } from './route-writes.ts';
import type { PositionBody, Route, RouteRecord, RouteWithWarnings } from './schemas.ts';
import { registryVehicleId, vehicleDocumentsWarnings } from './vehicle-documents.ts';
import { requireDispatchGuides } from './dispatch-guides.ts';

/** Positions may come a little from the future (phone clocks); more than this is refused. */
const CLOCK_SKEW_MS = 2 * 60_000;

export const getRoute = async (caller: Caller, routeId: string): Promise<Route> => {
  const route = await getRouteRecord(caller.tenantId, routeId);
  assertMayRead(caller, route);
  return withStops(route, (await readRoutePartition(caller.tenantId, routeId, route.state)).stops);
};

export const startRoute = async (caller: Caller, routeId: string): Promise<{ route: RouteWithWarnings; writes: Write[] }> => {
  const current = await getRouteRecord(caller.tenantId, routeId);
  assertMayAct(caller, current);
  requireRouteState(current, ['assigned'], 'start');
  // The vehicle itself, not the plate the route was assigned with: a plate changed since then in
  // the registry would otherwise escape the check. Routes from before fleetVehicleId: by plate.
  const vehicleId = current.fleetVehicleId ?? (await registryVehicleId(caller.tenantId, current.vehicle.plate));
  const warnings = await vehicleDocumentsWarnings(caller.tenantId, vehicleId, current.serviceDate, 'path.id');
  const at = nowIso(caller.now);
  const next: RouteRecord = { ...current, state: 'started', startedAt: at, updatedAt: at, version: current.version + 1 };
  const { stops } = await readRoutePartition(caller.tenantId, routeId);
  await requireDispatchGuides(caller.tenantId, stops);
  return {
    route: { ...withStops(next, stops), warnings },
    writes: [routeWrite(caller.tenantId, next, current.version), outboxEvent(caller.tenantId, 'field.route.started', { routeId }, caller.now).write],
  };
};

/** Finishing needs every stop settled: a stop the driver could not make is failed first. */
export const finishRoute = async (caller: Caller, routeId: string): Promise<{ route: Route; writes: Write[] }> => {
  const current = await getRouteRecord(caller.tenantId, routeId);
  assertMayAct(caller, current);
  requireRouteState(current, ['started'], 'finish');
  const { stops } = await readRoutePartition(caller.tenantId, routeId);
  const open = stops.filter((s) => s.state === 'pending').length;
  if (open > 0) throw new StateConflictError(`${open} stops have no outcome yet; deliver or fail them first.`, 'stops_pending');
  const at = nowIso(caller.now);
  const summary = {
    stopCount: stops.length,
    deliveredCount: stops.filter((s) => s.state === 'delivered').length,
    failedCount: stops.filter((s) => s.state === 'failed').length,
    durationSeconds: Math.max(0, Math.round((caller.now.getTime() - Date.parse(current.startedAt!)) / 1000)),
  };
  const next: RouteRecord = { ...current, state: 'finished', finishedAt: at, updatedAt: at, summary, version: current.version + 1 };
  return {
    route: withStops(next, stops),
    writes: [routeWrite(caller.tenantId, next, current.version), outboxEvent(caller.tenantId, 'field.route.finished', { routeId, finishedAt: at, summary }, caller.now).write],
  };
};

/**
 * Keeps the route's last position only (it feeds the tracking view; no event). A position older
 * than the one kept is accepted and ignored: phones send late batches after losing signal.
 */
export const recordPosition = async (caller: Caller, routeId: string, body: PositionBody): Promise<{ accepted: boolean; writes: Write[] }> => {
  const current = await getRouteRecord(caller.tenantId, routeId);
  assertMayAct(caller, current);
  requireRouteState(current, ['started'], 'take positions');
  if (Date.parse(body.recordedAt) > caller.now.getTime() + CLOCK_SKEW_MS) {
    throw new UnprocessableError('recordedAt is in the future.', 'position_in_future', [{ path: 'body.recordedAt', message: 'must not be in the future' }]);
  }
  const recordedAt = new Date(body.recordedAt).toISOString();
  const key = opsKeys.position(caller.tenantId, routeId);
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  if (Item && (Item.recordedAt as string) >= recordedAt) return { accepted: false, writes: [] };
  return {
    accepted: true,
    writes: [
      routeStartedCheck(caller.tenantId, routeId),
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...key, entity: 'route-position', tenantId: caller.tenantId, routeId, latitude: body.latitude, longitude: body.longitude, recordedAt },
            ConditionExpression: 'attribute_not_exists(pk) OR recordedAt < :at',
            ExpressionAttributeValues: { ':at': recordedAt },
          },
        },
        // A newer position was kept meanwhile: run again, and this one is ignored as older.
        onConditionFailed: () => new ReadOutdatedError(),
      },
    ],
  };
};
