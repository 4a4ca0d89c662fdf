import * as v from 'valibot';
import { DateTime, IsoDate, Uuid, Version } from '../../shared/http/schemas.ts';
import { MAX_ROUTE_STOPS } from './preview-schemas.ts';

/** A route holds up to 300 stops (decisions 15); it is assigned in chunks (docs/long-routes.md). */
export const MAX_STOPS_PER_ROUTE = MAX_ROUTE_STOPS;

export const VehicleRouteId = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(128, 'must be at most 128 characters'));

const PlannedRoute = v.strictObject({
  vehicleRouteId: v.optional(VehicleRouteId),
  orderIds: v.pipe(v.array(Uuid), v.minLength(1, 'a route needs at least one order'), v.maxLength(MAX_STOPS_PER_ROUTE, `at most ${MAX_STOPS_PER_ROUTE} orders per route`)),
});

export const CreatePlanBody = v.strictObject({
  serviceDate: IsoDate,
  routes: v.pipe(v.array(PlannedRoute), v.minLength(1, 'a plan needs at least one route'), v.maxLength(100, 'at most 100 routes')),
  unassignedOrderIds: v.optional(v.pipe(v.array(Uuid), v.maxLength(1000, 'at most 1000 orders')), []),
});
export type CreatePlanBody = v.InferOutput<typeof CreatePlanBody>;

export const ApproveBody = v.strictObject({ version: Version });

export const RoutePlan = v.pipe(
  v.object({
    id: Uuid,
    serviceDate: IsoDate,
    state: v.picklist(['preview', 'approved']),
    previewId: Uuid,
    routes: v.array(v.object({ vehicleRouteId: v.string(), orderIds: v.array(Uuid) })),
    unassignedOrderIds: v.array(Uuid),
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
    approvedAt: v.nullable(DateTime),
  }),
  v.title('RoutePlan'),
);
export type RoutePlan = v.InferOutput<typeof RoutePlan>;
