import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { seedOrders, type SeededOrder } from '../../support/seed-orders.ts';
import { created, orderBody, plate } from '../operations/support.ts';

export const SERVICE_DATE = '2026-11-23';

/** `count` pending orders of the day, spread over Santiago so a route has distances to travel, in the order asked. */
export const createOrders = async (tenant: TestTenant, _operator: TestMember, count: number, prefix: string, serviceDate = SERVICE_DATE): Promise<SeededOrder[]> =>
  seedOrders(tenant.id, Array.from({ length: count }, (_, i): [number, number] => [-33.40 - (i % 20) * 0.005, -70.70 + Math.floor(i / 20) * 0.005]), serviceDate, prefix);

/**
 * Tomorrow in Santiago: a day whose planned arrivals are still ahead whenever the test runs. A
 * tracking link shows a planned window only until it has gone by (functions/tracking/view.ts).
 */
export const upcomingServiceDate = (): string => new Date(Date.now() + 86_400_000).toLocaleDateString('en-CA', { timeZone: 'America/Santiago' });

/**
 * How the tracking page names a day other than today (decisions 17): "sáb 29 nov", written out
 * here apart from the page's own Intl formatting.
 */
export const spanishShortDay = (day: string): string => {
  const date = new Date(`${day}T12:00:00Z`);
  const weekdays = ['dom', 'lun', 'mar', 'mié', 'jue', 'vie', 'sáb'];
  const months = ['ene', 'feb', 'mar', 'abr', 'may', 'jun', 'jul', 'ago', 'sept', 'oct', 'nov', 'dic'];
  return `${weekdays[date.getUTCDay()]} ${date.getUTCDate()} ${months[date.getUTCMonth()]}`;
};

/** A client-computed plan of these routes, approved; `plannedArrivals` written as a plan from a preview has them. */
export const approvedPlan = async (
  tenant: TestTenant,
  operator: TestMember,
  routes: { vehicleRouteId: string; orderIds: string[] }[],
  plannedArrivals?: Record<string, string>,
  serviceDate = SERVICE_DATE,
) => {
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes } }));
  if (plannedArrivals) {
    await table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.plan(tenant.id, plan.id), UpdateExpression: 'SET plannedArrivals = :p', ExpressionAttributeValues: { ':p': plannedArrivals } }));
  }
  created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  return plan;
};

export const assignBody = (planId: string, driver: TestMember, vehicleRouteId = 'V1', vehiclePlate = plate()) => ({
  routePlanId: planId,
  vehicleRouteId,
  workerId: driver.id,
  serviceDate: SERVICE_DATE,
  depotName: 'Bodega Quilicura',
  vehicle: { plate: vehiclePlate, label: 'Camión 3/4' },
});

export const storedClaim = async (tenantId: string, planId: string, vehicleRouteId = 'V1') =>
  (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId), ConsistentRead: true }))).Item;

export const storedOrder = async (tenantId: string, orderId: string) =>
  (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.order(tenantId, orderId), ConsistentRead: true }))).Item!;

/** Every item of a route's partition, page after page. */
export const routePartitionItems = async (tenantId: string, routeId: string): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': opsKeys.routePartition(tenantId, routeId) }, ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};
