import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { StateConflictError, UnprocessableError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { newId } from '../../shared/ids.ts';
import { keys } from '../../shared/table/keys.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { getMemberById } from '../../shared/tenancy/members.ts';
import { createVehicle } from '../fleet/vehicles.ts';
import { orderStateWrite } from '../orders/orders.ts';
import { findOrders, type OrderRecord } from '../orders/records.ts';
import { getPlan } from '../routing/plans.ts';
import { routeItem, stopItem, withStops, type StopRecord } from './records.ts';
import type { AssignRouteBody, RouteRecord, RouteWithWarnings } from './schemas.ts';
import { vehicleDocumentsWarnings } from './vehicle-documents.ts';

const alreadyAssigned = () => new StateConflictError('This route of the plan is already assigned.', 'route_already_assigned');

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

/**
 * Turns one route of an approved plan into a route for a driver and a vehicle: the route, one
 * stop per order in the plan's order, each order marked assigned, and a claim that keeps the
 * planned route from being assigned twice, all in one transaction with the event.
 */
export const assignRoute = async (tenantId: string, body: AssignRouteBody, now: Date): Promise<{ route: RouteWithWarnings; writes: Write[] }> => {
  const plan = await getPlan(tenantId, body.routePlanId);
  if (plan.state !== 'approved') throw new StateConflictError('Only an approved plan can be assigned.');
  const planned = plan.routes.find((r) => r.vehicleRouteId === body.vehicleRouteId);
  if (!planned) throw new UnprocessableError('The plan has no route with this vehicleRouteId.', 'unknown_vehicle_route', [{ path: 'body.vehicleRouteId', message: 'not a route of the plan' }]);
  if (plan.serviceDate !== body.serviceDate) {
    throw new UnprocessableError('The service date differs from the plan’s.', 'service_date_mismatch', [{ path: 'body.serviceDate', message: `the plan is for ${plan.serviceDate}` }]);
  }
  const claim = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.planRouteClaim(tenantId, plan.id, planned.vehicleRouteId), ConsistentRead: true }));
  if (claim.Item) throw alreadyAssigned();
  const worker = await getMemberById(tenantId, body.workerId);
  if (!worker || !worker.active || worker.role !== 'driver') {
    throw new UnprocessableError('workerId must name an active driver of this company.', 'invalid_worker', [{ path: 'body.workerId', message: 'not an active driver' }]);
  }
  const orders = await findOrders(tenantId, planned.orderIds);
  const unavailable = planned.orderIds.filter((id) => orders.get(id)?.state !== 'pending');
  if (unavailable.length > 0) throw new StateConflictError(`Orders no longer pending: ${unavailable.join(', ')}.`);
  const vehicle = await resolveVehicle(tenantId, body.vehicle, now);
  // A vehicle made by this assignment was not in the registry: it has no documents to check.
  const warnings = await vehicleDocumentsWarnings(tenantId, vehicle.writes.length === 0 ? vehicle.vehicleId : undefined, body.serviceDate, 'body.vehicle.plate');

  const at = nowIso(now);
  const routeId = newId();
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
  const stops: StopRecord[] = planned.orderIds.map((orderId, i) => {
    const order = orders.get(orderId) as OrderRecord;
    return {
      id: newId(),
      sequence: i + 1,
      orderId,
      reference: order.reference,
      address: { text: order.address.text, latitude: order.address.latitude, longitude: order.address.longitude },
      state: 'pending',
      outcomeAt: null,
      evidenceCount: 0,
      failureReason: null,
      dispatchGuide: null,
      receivedBy: null,
      version: 1,
      trackingToken: order.trackingToken,
      evidence: [],
    };
  });
  const event = outboxEvent(
    tenantId,
    'field.route.assigned',
    { routeId, routePlanId: plan.id, vehicleRouteId: planned.vehicleRouteId, serviceDate: route.serviceDate, fleetVehicleId: vehicle.vehicleId, stopCount: stops.length, orderIds: planned.orderIds },
    now,
  );
  const writes: Write[] = [
    {
      item: { Put: { TableName: tableName(), Item: { ...opsKeys.planRouteClaim(tenantId, plan.id, planned.vehicleRouteId), entity: 'plan-route-claim', routeId }, ConditionExpression: 'attribute_not_exists(pk)' } },
      onConditionFailed: alreadyAssigned,
    },
    { item: { Put: { TableName: tableName(), Item: routeItem(tenantId, route), ConditionExpression: 'attribute_not_exists(pk)' } } },
    ...vehicle.writes,
    ...stops.map((stop): Write => ({ item: { Put: { TableName: tableName(), Item: stopItem(tenantId, routeId, stop), ConditionExpression: 'attribute_not_exists(pk)' } } })),
    ...stops.map((stop) => {
      const order = orders.get(stop.orderId) as OrderRecord;
      return orderStateWrite(tenantId, { ...order, state: 'assigned', routeId, stopId: stop.id, version: order.version + 1, updatedAt: at }, { version: order.version, state: 'pending' });
    }),
    event.write,
  ];
  return { route: { ...withStops(route, stops), warnings }, writes };
};
