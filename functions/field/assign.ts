import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { StateConflictError, UnprocessableError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { newId } from '../../shared/ids.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { getMemberById } from '../../shared/tenancy/members.ts';
import { createVehicle } from '../fleet/vehicles.ts';
import { fingerprint } from '../../shared/idempotency.ts';
import { AssignmentInProgressError, clearHolds, readClaim, releaseDeadAssignment } from '../orders/assignment-holds.ts';
import { findOrders, type OrderRecord } from '../orders/records.ts';
import { finishReleases } from '../orders/route-release.ts';
import { planAssignmentWrite } from '../routing/plan-discard.ts';
import { getPlanRecord } from '../routing/plans.ts';
import { acquireClaim, alreadyAssigned, claimAssignedWrite, writeChunks, type Placement } from './assignment-chunks.ts';
import { newStopRecord, routeItem, withStops, type StopRecord } from './records.ts';
import type { AssignRouteBody, RouteRecord, RouteWithWarnings } from './schemas.ts';
import { vehicleDocumentsWarnings } from './vehicle-documents.ts';

/**
 * The fleet registry's vehicle with this plate, or a new one made in the same transaction. When
 * a racing assignment made it first, the chain runs this one again, and it finds that vehicle.
 */
const resolveVehicle = async (tenantId: string, vehicle: AssignRouteBody['vehicle'], now: Date): Promise<{ vehicleId: string; writes: Write[] }> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.plate(tenantId, vehicle.plate), ConsistentRead: true }));
  if (Item) return { vehicleId: Item.vehicleId as string, writes: [] };
  const created = createVehicle(tenantId, { plate: vehicle.plate, label: vehicle.label, active: true }, now, () => new ReadOutdatedError());
  return { vehicleId: created.vehicle.id, writes: created.writes };
};

/** Orders of another planned route's unfinished assignment: wait for it, or release it when it died. */
const releaseOtherHolds = async (tenantId: string, orders: OrderRecord[], ownRouteId: string | undefined, now: Date): Promise<void> => {
  const others = new Map(orders.filter((o) => o.heldBy && o.heldBy.routeId !== ownRouteId).map((o) => [o.heldBy!.routeId, o.heldBy!]));
  if (others.size === 0) return;
  for (const hold of others.values()) {
    try {
      await releaseDeadAssignment(tenantId, hold, newId(), now);
    } catch (error) {
      if (error instanceof AssignmentInProgressError) {
        const ids = orders.filter((o) => o.heldBy?.routeId === hold.routeId).map((o) => o.id);
        throw new AssignmentInProgressError(`Orders being assigned to another route right now: ${ids.join(', ')}.`);
      }
      throw error;
    }
  }
  throw new ReadOutdatedError();
};

/**
 * Turns one route of an approved plan into a route for a driver and a vehicle: up to 300 stops
 * in the plan's order, each order marked assigned, all or nothing (docs/long-routes.md). The
 * claim of the planned route is taken first, the stops and order moves follow in chunks, and the
 * route item, the claim's `assigned` and the event are the request's own final transaction:
 * until it commits no reader sees the route, and the orders read as pending.
 */
export const assignRoute = async (tenantId: string, body: AssignRouteBody, now: Date): Promise<{ route: RouteWithWarnings; writes: Write[]; afterCommit: () => Promise<void> }> => {
  const plan = await getPlanRecord(tenantId, body.routePlanId);
  if (plan.state !== 'approved') throw new StateConflictError('Only an approved plan can be assigned.');
  const planned = plan.routes.find((r) => r.vehicleRouteId === body.vehicleRouteId);
  if (!planned) throw new UnprocessableError('The plan has no route with this vehicleRouteId.', 'unknown_vehicle_route', [{ path: 'body.vehicleRouteId', message: 'not a route of the plan' }]);
  if (planned.routeId !== null) {
    throw new UnprocessableError('This planned route changes an assigned route: apply the plan instead.', 'unknown_vehicle_route', [
      { path: 'body.vehicleRouteId', message: `changes route ${planned.routeId}; POST /v1/routing/plans/${plan.id}/apply` },
    ]);
  }
  if (plan.serviceDate !== body.serviceDate) {
    throw new UnprocessableError('The service date differs from the plan’s.', 'service_date_mismatch', [{ path: 'body.serviceDate', message: `the plan is for ${plan.serviceDate}` }]);
  }
  const existing = await readClaim(tenantId, plan.id, planned.vehicleRouteId);
  if (existing?.state === 'assigned') throw alreadyAssigned();
  const worker = await getMemberById(tenantId, body.workerId);
  if (!worker || !worker.active || worker.role !== 'driver') {
    throw new UnprocessableError('workerId must name an active driver of this company.', 'invalid_worker', [{ path: 'body.workerId', message: 'not an active driver' }]);
  }
  const orders = await findOrders(tenantId, planned.orderIds);
  const unavailable = planned.orderIds.filter((id) => orders.get(id)?.state !== 'pending');
  if (unavailable.length > 0) throw new StateConflictError(`Orders no longer pending: ${unavailable.join(', ')}.`);
  await releaseOtherHolds(tenantId, [...orders.values()], existing?.routeId, now);
  if ([...orders.values()].some((o) => o.releasedFrom)) {
    // Orders of a cancelled route that has not written them back yet: write them back first.
    await finishReleases(tenantId, [...orders.values()]);
    throw new ReadOutdatedError();
  }
  const vehicle = await resolveVehicle(tenantId, body.vehicle, now);
  // A vehicle made by this assignment was not in the registry: it has no documents to check.
  const warnings = await vehicleDocumentsWarnings(tenantId, vehicle.writes.length === 0 ? vehicle.vehicleId : undefined, body.serviceDate, 'body.vehicle.plate');

  const token = newId();
  const claim = await acquireClaim({
    tenantId,
    planId: plan.id,
    vehicleRouteId: planned.vehicleRouteId,
    orderIds: planned.orderIds,
    fingerprint: fingerprint('POST', '/v1/field/routes', body),
    token,
    now,
  });
  const at = nowIso(now);
  const routeId = claim.routeId;
  const route: RouteRecord = {
    id: routeId,
    routePlanId: plan.id,
    vehicleRouteId: planned.vehicleRouteId,
    workerId: worker.id,
    serviceDate: body.serviceDate,
    depotName: body.depotName,
    vehicle: body.vehicle,
    fleetVehicleId: vehicle.vehicleId,
    verification: { photo: body.verification?.photo ?? false, signature: body.verification?.signature ?? false, minPhotos: body.verification?.minPhotos ?? null },
    state: 'assigned',
    summary: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    finishedAt: null,
    cancelledAt: null,
  };
  const placements: Placement[] = planned.orderIds.map((orderId, i) => {
    const order = orders.get(orderId) as OrderRecord;
    const stop = newStopRecord(order, claim.stopIds[i], i + 1, plan.plannedArrivals[orderId] ?? null);
    return { stop, order };
  });
  await writeChunks(claim, { tenantId, planId: plan.id, vehicleRouteId: planned.vehicleRouteId }, placements, at);

  const stops = placements.map((p) => p.stop);
  const event = outboxEvent(
    tenantId,
    'field.route.assigned',
    { routeId, routePlanId: plan.id, vehicleRouteId: planned.vehicleRouteId, serviceDate: route.serviceDate, fleetVehicleId: vehicle.vehicleId, stopCount: stops.length, orderIds: planned.orderIds },
    now,
  );
  const writes: Write[] = [
    claimAssignedWrite(tenantId, plan.id, planned.vehicleRouteId, token),
    { item: { Put: { TableName: tableName(), Item: routeItem(tenantId, route), ConditionExpression: 'attribute_not_exists(pk)' } }, onConditionFailed: alreadyAssigned },
    ...vehicle.writes,
    planAssignmentWrite(tenantId, plan.id),
    event.write,
  ];
  return { route: { ...withStops(route, stops), warnings }, writes, afterCommit: () => clearHolds(tenantId, routeId, planned.orderIds) };
};
