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

const ClientPlanBody = v.pipe(
  v.strictObject({
    // A variant needs its key in both shapes; here it may only be absent.
    previewId: v.optional(v.pipe(v.never(), v.description('Absent: a body with previewId is a PlanFromPreview'))),
    serviceDate: IsoDate,
    routes: v.pipe(v.array(PlannedRoute), v.minLength(1, 'a plan needs at least one route'), v.maxLength(100, 'at most 100 routes')),
    unassignedOrderIds: v.optional(v.pipe(v.array(Uuid), v.maxLength(1000, 'at most 1000 orders')), []),
  }),
  v.title('PlanWithRoutes'),
  v.description('A plan the client computed: its routes of orders, in stop order.'),
);

const PlanFromPreviewBody = v.pipe(
  v.strictObject({ previewId: Uuid }, 'a plan from a preview takes previewId alone'),
  v.title('PlanFromPreview'),
  v.description('A plan made of a ready route preview: its routes, stop order and unassigned orders (decisions 15).'),
);

/**
 * Either shape, told apart by previewId: a variant (not a union) so that a wrong body is reported
 * field by field for the shape it meant, e.g. `body.routes` beside a previewId.
 */
export const CreatePlanBody = v.variant('previewId', [ClientPlanBody, PlanFromPreviewBody], 'must be the id of a route preview, or absent for a plan with routes');
export type CreatePlanBody = v.InferOutput<typeof CreatePlanBody>;
export type ClientPlanBody = v.InferOutput<typeof ClientPlanBody>;

export const ApproveBody = v.strictObject({ version: Version });
/** Discard and apply name the plan's version, as approve does (decisions 17). */
export const PlanVersionBody = ApproveBody;

export const RoutePlan = v.pipe(
  v.object({
    id: Uuid,
    serviceDate: IsoDate,
    state: v.picklist(['preview', 'approved', 'discarded']),
    previewId: Uuid,
    routes: v.array(
      v.object({
        vehicleRouteId: v.string(),
        routeId: v.pipe(v.nullable(Uuid), v.description('The assigned route this planned route changes when the plan is applied (decisions 17); null for a new route, assigned with POST /v1/field/routes')),
        orderIds: v.array(Uuid),
      }),
    ),
    unassignedOrderIds: v.array(Uuid),
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
    approvedAt: v.nullable(DateTime),
    appliedAt: v.pipe(v.nullable(DateTime), v.description('When POST .../apply changed the assigned routes the plan names')),
    discardedAt: v.nullable(DateTime),
  }),
  v.title('RoutePlan'),
);
export type RoutePlan = v.InferOutput<typeof RoutePlan>;
