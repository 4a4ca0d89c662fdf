import * as v from 'valibot';
import { DateTime as Time, IsoDate as Day } from '../http/schemas.ts';

/**
 * The event kinds of the specification (Events part) and the exact fields of their `data`,
 * typed as decisions 6 fixes them. Producers build data through these schemas, so a field that
 * is not listed here never reaches a receiver.
 */
const Uuid = v.pipe(v.string(), v.uuid());
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
/** decisions 9: the intent's states and the provider's document id, no personal data. */
const invoiceData = v.strictObject({
  invoiceIntentId: Uuid,
  documentKind: v.picklist(['receipt', 'invoice', 'credit_note', 'dispatch_guide']),
  localState: v.string(),
  providerState: v.string(),
  taxState: v.string(),
  externalDocumentId: v.nullable(v.string()),
});

export const eventDataSchemas = {
  'distribution.order.created': v.strictObject({ orderId: Uuid, reference: v.string(), state: v.string() }),
  'distribution.order.cancelled': v.strictObject({ orderId: Uuid, reference: v.string(), state: v.string() }),
  'finance.invoice.issued': invoiceData,
  'finance.invoice.rejected': invoiceData,
  'routing.plan.approved': v.strictObject({ routePlanId: Uuid, previewId: Uuid, routeCount: Count, unassignedCount: Count }),
  // decisions 15: a route preview ended; its routes are read with GET /v1/routing/previews/{id}.
  'routing.preview.completed': v.strictObject({ previewId: Uuid, serviceDate: Day, state: v.picklist(['ready', 'failed']), routeCount: Count, unassignedCount: Count }),
  'field.route.assigned': v.strictObject({
    routeId: Uuid,
    routePlanId: Uuid,
    vehicleRouteId: v.string(),
    serviceDate: Day,
    fleetVehicleId: Uuid,
    stopCount: Count,
    orderIds: v.array(Uuid),
  }),
  'field.route.cancelled': v.strictObject({ routeId: Uuid, serviceDate: Day }),
  // decisions 17: a route changed in place (a plan applied over it, or re-ordered on the road);
  // stopCount and orderIds are all the route's stops after the change, in sequence.
  'field.route.updated': v.strictObject({
    routeId: Uuid,
    serviceDate: Day,
    version: v.pipe(v.number(), v.integer(), v.minValue(1)),
    stopCount: Count,
    orderIds: v.array(Uuid),
    addedOrderIds: v.array(Uuid),
    removedOrderIds: v.array(Uuid),
  }),
  'field.route.started': v.strictObject({ routeId: Uuid }),
  'field.stop.delivered': v.strictObject({ routeId: Uuid, stopId: Uuid, orderId: Uuid, reference: v.string(), outcomeAt: Time, evidenceCount: Count }),
  'field.stop.failed': v.strictObject({ routeId: Uuid, stopId: Uuid, orderId: Uuid, reference: v.string(), outcomeAt: Time, evidenceCount: Count }),
  'field.route.finished': v.strictObject({
    routeId: Uuid,
    finishedAt: Time,
    summary: v.strictObject({ stopCount: Count, deliveredCount: Count, failedCount: Count, durationSeconds: Count }),
  }),
  'webhook.test': v.strictObject({ endpointId: Uuid, message: v.string() }),
  // decisions 5: operational events about one destination, sent to the company's other ones.
  'webhook.endpoint.failing': v.strictObject({ endpointId: Uuid, url: v.string(), consecutiveFailures: Count, disabledReason: v.null() }),
  'webhook.endpoint.disabled': v.strictObject({ endpointId: Uuid, url: v.string(), consecutiveFailures: Count, disabledReason: v.literal('failures') }),
  'integration.import.finished': v.strictObject({
    connectionId: Uuid,
    importId: Uuid,
    state: v.picklist(['succeeded', 'failed']),
    counts: v.strictObject({ seen: Count, created: Count, updated: Count, unchanged: Count, conflicts: Count }),
  }),
} as const;

export type EventType = keyof typeof eventDataSchemas;
export type EventData<T extends EventType> = v.InferOutput<(typeof eventDataSchemas)[T]>;

export const eventTypes = Object.keys(eventDataSchemas) as EventType[];

/**
 * What a destination may subscribe to: every kind of the catalogue (decisions 5). Subscribing to
 * `webhook.test` changes nothing: a test event names its one destination and is never fanned out.
 */
export const subscribableEventTypes: EventType[] = [...eventTypes];

/** The envelope's `version` (the specification's webhook envelope carries an integer version). */
export const ENVELOPE_VERSION = 1;
