import * as v from 'valibot';
import { DateTime, IsoDate, Limit, Uuid, Version } from '../../shared/http/schemas.ts';

/** A clock time of the service date in the tenant's time zone (decisions 15). */
export const ClockTime = v.pipe(v.string('must be a string'), v.regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'must be a time HH:MM'));

export const previewStates = ['queued', 'solving', 'ready', 'failed'] as const;
export type PreviewState = (typeof previewStates)[number];
export const previewObjectives = ['duration', 'distance', 'vehicles'] as const;
export const unassignedCodes = ['capacity_exceeded', 'skills_missing', 'time_window_unreachable', 'no_vehicle_fits', 'no_room'] as const;

/** At most this many stops on a route, planned or assigned (decisions 15). */
export const MAX_ROUTE_STOPS = 300;
export const MAX_PREVIEW_ORDERS = 1000;
export const MAX_PREVIEW_VEHICLES = 100;
export const MAX_TIME_LIMIT_SECONDS = 120;
/** Assigned routes a preview may change (decisions 17). */
export const MAX_PREVIEW_ROUTES = 100;

const Int = (min: number, max: number) => v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));

const PreviewVehicleInput = v.strictObject({
  vehicleId: Uuid,
  shiftStart: ClockTime,
  shiftEnd: ClockTime,
  maxStops: v.optional(Int(1, MAX_ROUTE_STOPS), MAX_ROUTE_STOPS),
});

export const CreatePreviewBody = v.strictObject({
  serviceDate: IsoDate,
  depotId: Uuid,
  orderIds: v.optional(v.pipe(v.array(Uuid), v.minLength(1, 'name at least one order, or leave orderIds out'), v.maxLength(MAX_PREVIEW_ORDERS, `at most ${MAX_PREVIEW_ORDERS} orders`))),
  routeIds: v.optional(
    v.pipe(
      v.array(Uuid),
      v.maxLength(MAX_PREVIEW_ROUTES, `at most ${MAX_PREVIEW_ROUTES} routes`),
      v.description('Assigned routes of the date to change (decisions 17): their orders join the problem and each keeps its vehicle, which must be in vehicles'),
    ),
    [],
  ),
  vehicles: v.pipe(v.array(PreviewVehicleInput), v.minLength(1, 'a preview needs at least one vehicle'), v.maxLength(MAX_PREVIEW_VEHICLES, `at most ${MAX_PREVIEW_VEHICLES} vehicles`)),
  objective: v.optional(v.picklist(previewObjectives, 'must be duration, distance or vehicles'), 'duration'),
  timeLimitSeconds: v.optional(Int(1, MAX_TIME_LIMIT_SECONDS)),
  seed: v.optional(Int(0, 2147483647), 1),
});
export type CreatePreviewBody = v.InferOutput<typeof CreatePreviewBody>;

export const PreviewQuery = v.strictObject({
  serviceDate: IsoDate,
  after: v.optional(Uuid),
  limit: Limit,
});

const Load = v.object({ weightKg: v.number(), volumeM3: v.number() });

export const PreviewStop = v.object({
  sequence: v.pipe(v.number(), v.description('1-based place on the route')),
  orderId: Uuid,
  reference: v.pipe(v.nullable(v.string()), v.description('The order’s reference (null on previews solved before it was shown)')),
  arrivalAt: DateTime,
  serviceStartAt: DateTime,
  departureAt: DateTime,
  waitSeconds: v.number(),
  distanceMetersFromPrevious: v.number(),
});
export type PreviewStop = v.InferOutput<typeof PreviewStop>;

export const PreviewRoute = v.object({
  vehicleRouteId: v.string(),
  routeId: v.pipe(v.nullable(Uuid), v.description('The assigned route this one changes (decisions 17), or null for a new route')),
  vehicleId: Uuid,
  label: v.pipe(v.nullable(v.string()), v.description('The vehicle’s label in the registry when the preview was asked')),
  plate: v.pipe(v.nullable(v.string()), v.description('The vehicle’s plate in the registry when the preview was asked')),
  startAt: DateTime,
  endAt: DateTime,
  distanceMeters: v.number(),
  durationSeconds: v.number(),
  load: Load,
  stops: v.array(PreviewStop),
});
export type PreviewRoute = v.InferOutput<typeof PreviewRoute>;

export const UnassignedOrder = v.object({
  orderId: Uuid,
  reasons: v.array(v.object({ code: v.picklist(unassignedCodes), message: v.string() })),
});
export type UnassignedOrder = v.InferOutput<typeof UnassignedOrder>;

/** The fields before `routes` and `unassigned`, and those after, as the specification lists them. */
const headFields = {
  id: Uuid,
  serviceDate: IsoDate,
  depotId: Uuid,
  objective: v.picklist(previewObjectives),
  state: v.picklist(previewStates),
  failure: v.nullable(v.object({ code: v.string(), message: v.string() })),
};

const tailFields = {
  totals: v.nullable(
    v.object({ routeCount: v.number(), assignedCount: v.number(), unassignedCount: v.number(), distanceMeters: v.number(), durationSeconds: v.number() }),
  ),
  solver: v.object({
    name: v.string(),
    version: v.string(),
    seed: v.number(),
    timeLimitSeconds: v.number(),
    elapsedMs: v.pipe(v.nullable(v.number()), v.description('null until the preview is solved')),
    travelModel: v.string(),
    stoppedBy: v.pipe(
      v.nullable(v.picklist(['work', 'time'])),
      v.description('What ended the search (decisions 18): `work`, its deterministic budget, or `time`, the time limit first (only then may a repeat differ); null until the preview is solved'),
    ),
  }),
  earliestStartAt: v.pipe(
    v.nullable(DateTime),
    v.description('For a preview of today in the tenant’s zone: no route leaves the depot before it (createdAt + planningLeadMinutes, rounded up to the minute); null for other days'),
  ),
  version: Version,
  createdAt: DateTime,
  updatedAt: DateTime,
};

export const Preview = v.pipe(
  v.object({ ...headFields, routes: v.array(PreviewRoute), unassigned: v.array(UnassignedOrder), ...tailFields }),
  v.title('RoutePreview'),
);
export type Preview = v.InferOutput<typeof Preview>;

/**
 * A preview in the list: every field but `routes` and `unassigned` (decisions 18), so a page of
 * 100 stays a few hundred KB under Lambda's 6 MB answer (ready 1,000-stop previews are ~250 KB
 * each); the routes are read one preview at a time.
 */
export const PreviewSummary = v.pipe(v.object({ ...headFields, ...tailFields }), v.title('RoutePreviewSummary'));
export type PreviewSummary = v.InferOutput<typeof PreviewSummary>;
