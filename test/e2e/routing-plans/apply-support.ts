import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { previewItem } from '../../../functions/routing/preview-record.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { created } from '../operations/support.ts';
import { approvedPlan, assignBody } from '../routes/support.ts';
import { previewOf } from './support.ts';

/** A route of these orders, assigned to the driver from an approved plan of its own. */
export const assignedRoute = async (tenant: TestTenant, operator: TestMember, driver: TestMember, orderIds: string[]) => {
  const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds }]);
  return created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) }));
};

/**
 * An approved plan from a preview over assigned routes (decisions 17), as the worker would store
 * the preview: `routes[i]` the new order ids of `changed[i]` (an empty list leaves the route with
 * no order), stored straight to the table as the other plan tests do.
 */
export const planOverRoutes = async (tenant: TestTenant, operator: TestMember, changed: { route: any; orderIds: string[] }[], unassigned: string[] = []) => {
  const kept = changed.filter((c) => c.orderIds.length > 0);
  const preview = previewOf(
    kept.map((c) => c.orderIds),
    unassigned,
    { routeIds: kept.map((c) => c.route.id) },
  );
  kept.forEach((c, i) => (preview.routes[i].vehicleId = c.route.fleetVehicleId));
  const request = { routes: changed.map((c) => ({ routeId: c.route.id, vehicleId: c.route.fleetVehicleId, version: c.route.version })) };
  await runAs(OPERATOR, () => table().send(new PutCommand({ TableName: tableName(), Item: previewItem(tenant.id, preview, { request }) })));
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: preview.id } }));
  return created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
};
