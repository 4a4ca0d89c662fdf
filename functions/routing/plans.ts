import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, UnprocessableError, VersionMismatchError, type FieldIssue } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { newId } from '../../shared/ids.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { findOrders } from '../orders/records.ts';
import { planOfPreview } from './plan-from-preview.ts';
import { assertPlanFits } from './plan-size.ts';
import type { PlanRecord } from './plan-record.ts';
import type { ClientPlanBody, CreatePlanBody, RoutePlan } from './schemas.ts';

export type { PlanRecord };

const toPlan = (item: Record<string, unknown>): RoutePlan => ({
  id: item.planId as string,
  serviceDate: item.serviceDate as string,
  state: item.state as RoutePlan['state'],
  previewId: item.previewId as string,
  // Plans stored before decisions 17 name no routeId: their routes are all new.
  routes: (item.routes as RoutePlan['routes']).map((route) => ({ vehicleRouteId: route.vehicleRouteId, routeId: route.routeId ?? null, orderIds: route.orderIds })),
  unassignedOrderIds: item.unassignedOrderIds as string[],
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  approvedAt: (item.approvedAt as string | undefined) ?? null,
  appliedAt: (item.appliedAt as string | undefined) ?? null,
  discardedAt: (item.discardedAt as string | undefined) ?? null,
});

/**
 * The stored plan: the public shape plus, for a plan made from a preview, each order's planned
 * arrival (orderId → date-time with the tenant's offset), which the route's stops show as
 * `plannedArrivalAt` (decisions 15). Empty for a client-computed plan.
 */

const planItem = (tenantId: string, plan: RoutePlan, plannedArrivals: Record<string, string> = {}, changesRoutes: PlanRecord['changesRoutes'] = []) => ({
  ...opsKeys.plan(tenantId, plan.id),
  ...opsKeys.plansByDate(tenantId, plan.serviceDate, plan.id),
  entity: 'route-plan',
  tenantId,
  planId: plan.id,
  serviceDate: plan.serviceDate,
  state: plan.state,
  previewId: plan.previewId,
  routes: plan.routes,
  unassignedOrderIds: plan.unassignedOrderIds,
  version: plan.version,
  createdAt: plan.createdAt,
  updatedAt: plan.updatedAt,
  approvedAt: plan.approvedAt ?? undefined,
  appliedAt: plan.appliedAt ?? undefined,
  discardedAt: plan.discardedAt ?? undefined,
  plannedArrivals: Object.keys(plannedArrivals).length > 0 ? plannedArrivals : undefined,
  changesRoutes: changesRoutes.length > 0 ? changesRoutes : undefined,
});

/** Every named order must exist, be pending, be for the plan's day and appear only once. */
const checkOrders = async (tenantId: string, body: ClientPlanBody): Promise<void> => {
  const named = [
    ...body.routes.flatMap((route, r) => route.orderIds.map((id, i) => ({ id, path: `body.routes.${r}.orderIds.${i}` }))),
    ...body.unassignedOrderIds.map((id, i) => ({ id, path: `body.unassignedOrderIds.${i}` })),
  ];
  const orders = await findOrders(tenantId, named.map((n) => n.id));
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const { id, path } of named) {
    const order = orders.get(id);
    if (seen.has(id)) issues.push({ path, message: 'this order appears more than once in the plan' });
    else if (!order) issues.push({ path, message: 'no order with this id' });
    else if (order.state !== 'pending') issues.push({ path, message: `the order is ${order.state}, not pending` });
    else if (order.serviceDate !== body.serviceDate) issues.push({ path, message: `the order is for ${order.serviceDate}` });
    seen.add(id);
  }
  const vehicleRouteIds = body.routes.map((route, i) => route.vehicleRouteId ?? `R${i + 1}`);
  vehicleRouteIds.forEach((id, i) => {
    if (vehicleRouteIds.indexOf(id) !== i) issues.push({ path: `body.routes.${i}.vehicleRouteId`, message: 'vehicleRouteId must be unique in the plan' });
  });
  if (issues.length > 0) throw new UnprocessableError('The plan names orders it cannot take.', 'invalid_plan', issues);
};

const putNewPlan = (tenantId: string, plan: RoutePlan, plannedArrivals?: Record<string, string>, changesRoutes?: PlanRecord['changesRoutes']): Write => ({
  item: { Put: { TableName: tableName(), Item: planItem(tenantId, plan, plannedArrivals, changesRoutes), ConditionExpression: 'attribute_not_exists(pk)' } },
});

export const createPlan = async (tenantId: string, body: CreatePlanBody, now: Date): Promise<{ plan: RoutePlan; writes: Write[] }> => {
  if (body.previewId !== undefined) {
    const { plan, plannedArrivals, changesRoutes, claim } = await planOfPreview(tenantId, body.previewId, now);
    return { plan, writes: [putNewPlan(tenantId, plan, plannedArrivals, changesRoutes), claim] };
  }
  const at = nowIso(now);
  const plan: RoutePlan = {
    id: newId(),
    serviceDate: body.serviceDate,
    state: 'preview',
    // A client-computed plan has no preview; the event's previewId is still a fresh id of its own.
    previewId: newId(),
    routes: body.routes.map((route, i) => ({ vehicleRouteId: route.vehicleRouteId ?? `R${i + 1}`, routeId: null, orderIds: route.orderIds })),
    unassignedOrderIds: body.unassignedOrderIds,
    version: 1,
    createdAt: at,
    updatedAt: at,
    approvedAt: null,
    appliedAt: null,
    discardedAt: null,
  };
  // Measured before its orders are read: one too large to store is a 422, never DynamoDB's 500.
  assertPlanFits(planItem(tenantId, plan), plan);
  await checkOrders(tenantId, body);
  return { plan, writes: [putNewPlan(tenantId, plan)] };
};

export const getPlanRecord = async (tenantId: string, planId: string): Promise<PlanRecord> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.plan(tenantId, planId), ConsistentRead: true }));
  if (!Item) throw new NotFoundError('No route plan with this id.');
  return {
    ...toPlan(Item),
    plannedArrivals: (Item.plannedArrivals as Record<string, string> | undefined) ?? {},
    changesRoutes: (Item.changesRoutes as PlanRecord['changesRoutes'] | undefined) ?? [],
    assignments: (Item.assignments as number | undefined) ?? 0,
  };
};

export const getPlan = async (tenantId: string, planId: string): Promise<RoutePlan> => {
  const { plannedArrivals: _planned, changesRoutes: _changes, assignments: _assignments, ...plan } = await getPlanRecord(tenantId, planId);
  return plan;
};

export const approvePlan = async (tenantId: string, planId: string, version: number, now: Date): Promise<{ plan: RoutePlan; writes: Write[] }> => {
  const { plannedArrivals, changesRoutes, assignments: _assignments, ...current } = await getPlanRecord(tenantId, planId);
  if (current.version !== version) throw new VersionMismatchError(current.version, version);
  if (current.state !== 'preview') throw new StateConflictError(`A plan that is ${current.state} cannot be approved.`);
  const at = nowIso(now);
  const plan: RoutePlan = { ...current, state: 'approved', version: current.version + 1, updatedAt: at, approvedAt: at };
  const event = outboxEvent(
    tenantId,
    'routing.plan.approved',
    { routePlanId: plan.id, previewId: plan.previewId, routeCount: plan.routes.length, unassignedCount: plan.unassignedOrderIds.length },
    now,
  );
  const write: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: planItem(tenantId, plan, plannedArrivals, changesRoutes),
        ConditionExpression: 'attribute_exists(pk) AND version = :version AND #state = :preview',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':version': version, ':preview': 'preview' },
      },
    },
    onConditionFailed: (old) =>
      !old ? new NotFoundError('No route plan with this id.') : old.version !== version ? new VersionMismatchError(old.version as number, version) : new StateConflictError('The plan is no longer in preview.'),
  };
  return { plan, writes: [write, event.write] };
};
