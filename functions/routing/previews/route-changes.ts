import type { FieldIssue } from '../../../shared/errors.ts';
import { findRoute, readRoutePartition } from '../../field/records.ts';
import type { CreatePreviewBody } from '../preview-schemas.ts';
import type { PreviewRequest } from './request.ts';

export interface RoutesToChange {
  /** Each named route with its vehicle and the version it has now. */
  routes: NonNullable<PreviewRequest['routes']>;
  /** The orders on those routes now, in the routes' order: they join the problem. */
  orderIds: string[];
}

/**
 * decisions 17: the assigned routes a preview changes. Each must be a route of the service date
 * in state `assigned`, named once, whose vehicle is among the preview's `vehicles` (the route
 * keeps it) and is no other named route's; every route that is not is named in `issues`.
 */
export const checkRoutesToChange = async (tenantId: string, body: CreatePreviewBody, issues: FieldIssue[]): Promise<RoutesToChange> => {
  const found = await Promise.all(body.routeIds.map((id) => findRoute(tenantId, id)));
  const seen = new Set<string>();
  const vehicles = new Map<string, number>();
  const routes: RoutesToChange['routes'] = [];
  const orderIds: string[] = [];
  for (const [i, route] of found.entries()) {
    const path = `body.routeIds.${i}`;
    const id = body.routeIds[i];
    const problem = seen.has(id)
      ? 'this route appears more than once'
      : !route
        ? 'no route with this id'
        : route.state !== 'assigned'
          ? `the route is ${route.state}, not assigned`
          : route.serviceDate !== body.serviceDate
            ? `the route is for ${route.serviceDate}`
            : !body.vehicles.some((v) => v.vehicleId === route.fleetVehicleId)
              ? `its vehicle ${route.fleetVehicleId} must be among vehicles: the route keeps it`
              : vehicles.has(route.fleetVehicleId)
                ? `its vehicle is also the vehicle of body.routeIds.${vehicles.get(route.fleetVehicleId)}`
                : undefined;
    seen.add(id);
    if (problem || !route) {
      issues.push({ path, message: problem ?? 'no route with this id' });
      continue;
    }
    vehicles.set(route.fleetVehicleId, i);
    routes.push({ routeId: route.id, vehicleId: route.fleetVehicleId, version: route.version });
    const { stops } = await readRoutePartition(tenantId, route.id, route.state);
    orderIds.push(...stops.filter((s) => s.state === 'pending').map((s) => s.orderId));
  }
  return { routes, orderIds };
};
