import * as v from 'valibot';
import { DateTime, IsoDate, Latitude, Longitude, Uuid, Version } from '../../shared/http/schemas.ts';
import { CreateVehicleBody } from '../fleet/schemas.ts';
import { VehicleRouteId } from '../routing/schemas.ts';
import { StopDispatchGuide } from './dispatch-guide-schemas.ts';
import { ReceivedBy, ReceivedByInput } from './receipt.ts';

/**
 * Which evidence a delivery needs (the specification leaves the object open): a photo, a
 * signature, or both; `minPhotos` raises the number of photos when photos are required.
 */
export const VerificationPolicy = v.pipe(
  v.strictObject({
    photo: v.optional(v.boolean('must be true or false'), false),
    signature: v.optional(v.boolean('must be true or false'), false),
    minPhotos: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(10))),
  }),
  v.title('VerificationPolicy'),
);
export type VerificationPolicy = v.InferOutput<typeof VerificationPolicy>;

export const AssignRouteBody = v.strictObject({
  routePlanId: Uuid,
  vehicleRouteId: VehicleRouteId,
  workerId: Uuid,
  serviceDate: IsoDate,
  depotName: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(120, 'must be at most 120 characters')),
  // The fleet registry's own rules for plate and label: the vehicle is found or made there.
  vehicle: v.strictObject({ plate: CreateVehicleBody.entries.plate, label: CreateVehicleBody.entries.label }),
  verification: v.optional(VerificationPolicy),
});
export type AssignRouteBody = v.InferOutput<typeof AssignRouteBody>;

const Evidence = v.strictObject({
  kind: v.picklist(['photo', 'signature', 'note'], 'must be photo, signature or note'),
  /** Where the evidence was stored (an object key or URL the field app uploaded to), or a note's text. */
  reference: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(500, 'must be at most 500 characters')),
});
export type Evidence = v.InferOutput<typeof Evidence>;
const EvidenceList = v.pipe(v.array(Evidence), v.maxLength(20, 'at most 20 pieces of evidence'));

export const DeliverBody = v.strictObject({ evidence: v.optional(EvidenceList, []), receivedBy: v.optional(v.nullable(ReceivedByInput), null) });
export const FailBody = v.strictObject({
  reason: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  evidence: v.optional(EvidenceList, []),
});
export const PositionBody = v.strictObject({
  latitude: Latitude,
  longitude: Longitude,
  recordedAt: DateTime,
});
export type PositionBody = v.InferOutput<typeof PositionBody>;
export const CancelRouteBody = v.strictObject({ version: Version });
export const StopParams = v.strictObject({ id: Uuid, stopId: Uuid });

export const routeStates = ['assigned', 'started', 'finished', 'cancelled'] as const;
export const stopStates = ['pending', 'delivered', 'failed', 'cancelled', 'removed'] as const;

export const Stop = v.pipe(
  v.object({
    id: Uuid,
    sequence: v.pipe(v.number(), v.integer()),
    orderId: Uuid,
    reference: v.string(),
    address: v.object({ text: v.string(), latitude: v.number(), longitude: v.number() }),
    state: v.pipe(v.picklist(stopStates), v.description('cancelled: its order was cancelled; removed: its route was cancelled')),
    outcomeAt: v.nullable(DateTime),
    evidenceCount: v.pipe(v.number(), v.integer()),
    failureReason: v.nullable(v.string()),
    plannedArrivalAt: v.pipe(v.nullable(DateTime), v.description('The arrival the route preview planned (with the tenant’s offset) when the route comes from a plan made from a preview; null otherwise')),
    late: v.pipe(v.boolean(), v.description('true when the route’s last resequence found that this open stop can no longer be served within its time windows (it then comes after the others); false otherwise')),
    dispatchGuide: StopDispatchGuide,
    receivedBy: v.pipe(v.nullable(ReceivedBy), v.description('The receipt of goods (Ley 19.983), null without one; only ever in this answer')),
    version: Version,
  }),
  v.title('Stop'),
);
export type Stop = v.InferOutput<typeof Stop>;

const Summary = v.object({ stopCount: v.number(), deliveredCount: v.number(), failedCount: v.number(), durationSeconds: v.number() });

export const Route = v.pipe(
  v.object({
    id: Uuid,
    routePlanId: Uuid,
    vehicleRouteId: v.string(),
    workerId: Uuid,
    serviceDate: IsoDate,
    depotName: v.string(),
    vehicle: v.object({ plate: v.string(), label: v.string() }),
    fleetVehicleId: Uuid,
    verification: v.object({ photo: v.boolean(), signature: v.boolean(), minPhotos: v.nullable(v.number()) }),
    state: v.picklist(routeStates),
    stops: v.array(Stop),
    summary: v.nullable(Summary),
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
    startedAt: v.nullable(DateTime),
    finishedAt: v.nullable(DateTime),
    cancelledAt: v.nullable(DateTime),
  }),
  v.title('Route'),
);
export type Route = v.InferOutput<typeof Route>;
export type RouteRecord = Omit<Route, 'stops'>;

/** The documents a vehicle must carry on the road (decisions 11); its service is not one. */
export const roadDocuments = ['technicalReview', 'circulationPermit', 'soap'] as const;
export type RoadDocument = (typeof roadDocuments)[number];

export const Warning = v.pipe(
  v.object({
    code: v.pipe(v.picklist(['vehicle_documents_expired']), v.description('vehicle_documents_expired: documents of the route’s vehicle dated before its service date')),
    items: v.array(v.picklist(roadDocuments)),
  }),
  v.title('RouteWarning'),
);
export type Warning = v.InferOutput<typeof Warning>;

/** The answer of an assignment or a start: the route, and what the tenant's policies warn of. */
export const RouteWithWarnings = v.pipe(
  v.object({
    ...Route.pipe[0].entries,
    warnings: v.pipe(v.array(Warning), v.description('Empty when nothing to warn of, or when the tenant’s vehicleDocumentsPolicy is ignore')),
  }),
  v.title('RouteWithWarnings'),
);
export type RouteWithWarnings = v.InferOutput<typeof RouteWithWarnings>;
