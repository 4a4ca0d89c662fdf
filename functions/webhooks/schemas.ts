import * as v from 'valibot';
import { subscribableEventTypes, eventTypes } from '../../shared/events/catalogue.ts';
import { DateTime, Limit, Uuid, Version } from '../../shared/http/schemas.ts';
import { attemptOutcomes } from './transport/outcomes.ts';

export const EventType = v.picklist(eventTypes);
const SubscribableEventType = v.picklist(subscribableEventTypes, `must be one of ${subscribableEventTypes.join(', ')}`);

const EventTypes = v.pipe(
  v.array(SubscribableEventType, 'must be an array of event kinds'),
  v.minLength(1, 'must name at least one event kind'),
  v.check((types) => new Set(types).size === types.length, 'must not repeat an event kind'),
);
const Description = v.pipe(v.string('must be a string'), v.maxLength(500, 'must be at most 500 characters'));

export const MAX_GRACE_SECONDS = 7 * 24 * 3600;

export const endpointStates = ['active', 'disabled'] as const;
export const disabledReasons = ['manual', 'failures'] as const;
export const deliveryStates = ['pending', 'delivering', 'succeeded', 'dead'] as const;
export type DeliveryState = (typeof deliveryStates)[number];

const Int = v.pipe(v.number(), v.integer());

export const SecretInfo = v.object({ id: Uuid, createdAt: DateTime, expiresAt: DateTime });

export const Endpoint = v.pipe(
  v.object({
    id: Uuid,
    url: v.string(),
    description: v.nullable(v.string()),
    eventTypes: v.array(EventType),
    state: v.picklist(endpointStates),
    disabledReason: v.nullable(v.picklist(disabledReasons)),
    consecutiveFailures: Int,
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
    secrets: v.array(SecretInfo),
  }),
  v.title('WebhookEndpoint'),
);
export type Endpoint = v.InferOutput<typeof Endpoint>;

export const SecretReveal = v.pipe(v.object({ id: Uuid, value: v.pipe(v.string(), v.startsWith('whsec_')), createdAt: DateTime }), v.title('WebhookSecretReveal'));
export type SecretReveal = v.InferOutput<typeof SecretReveal>;

export const EndpointWithSecret = v.object({ endpoint: Endpoint, secret: SecretReveal });

export const CreateEndpointBody = v.strictObject({
  url: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2048, 'must be at most 2048 characters')),
  description: v.optional(v.nullable(Description)),
  eventTypes: EventTypes,
});

export const UpdateEndpointBody = v.strictObject({
  version: Version,
  description: v.optional(v.nullable(Description)),
  eventTypes: v.optional(EventTypes),
  active: v.optional(v.boolean('must be true or false')),
});
export type UpdateEndpointBody = v.InferOutput<typeof UpdateEndpointBody>;

export const RotateSecretBody = v.strictObject({
  version: Version,
  graceSeconds: v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'), v.maxValue(MAX_GRACE_SECONDS, `must be at most ${MAX_GRACE_SECONDS} (7 days)`)),
});

export const Delivery = v.pipe(
  v.object({
    id: Uuid,
    endpointId: Uuid,
    eventId: Uuid,
    eventType: EventType,
    state: v.picklist(deliveryStates),
    mode: v.picklist(['auto', 'manual']),
    attempts: Int,
    maxAttempts: Int,
    manualRetries: Int,
    nextAttemptAt: v.nullable(DateTime),
    lastAttemptAt: v.nullable(DateTime),
    lastStatus: v.nullable(Int),
    lastOutcome: v.nullable(v.picklist(attemptOutcomes)),
    succeededAt: v.nullable(DateTime),
    deadAt: v.nullable(DateTime),
    createdAt: DateTime,
  }),
  v.title('WebhookDelivery'),
);
export type Delivery = v.InferOutput<typeof Delivery>;

export const AttemptLogEntry = v.object({
  attemptNo: Int,
  trigger: v.picklist(['auto', 'manual']),
  startedAt: DateTime,
  durationMs: Int,
  outcome: v.picklist(attemptOutcomes),
  statusCode: v.nullable(Int),
  retryAfterSeconds: v.pipe(v.nullable(Int), v.description('the receiver’s Retry-After in seconds (on 429 or 503), null without the header')),
  responseExcerpt: v.pipe(
    v.optional(v.nullable(v.string())),
    v.description('the first 256 bytes of the receiver’s body as UTF-8 text, control characters removed; null without a body; only admins read it (absent for other roles)'),
  ),
});
export type AttemptLogEntry = v.InferOutput<typeof AttemptLogEntry>;

export const DeliveryDetail = v.pipe(
  v.object({
    ...Delivery.pipe[0].entries,
    event: v.object({ id: Uuid, type: EventType, occurredAt: DateTime, data: v.record(v.string(), v.unknown()) }),
    attemptLog: v.array(AttemptLogEntry),
    attemptLogOmitted: v.pipe(Int, v.description('entries left out between the first 3 and the latest 17 of a long log')),
  }),
  v.title('WebhookDeliveryDetail'),
);

export const EndpointDeliveriesQuery = v.strictObject({ state: v.optional(v.picklist(deliveryStates)), before: v.optional(Uuid), limit: Limit });
export const DeliveriesQuery = v.strictObject({ state: v.optional(v.picklist(deliveryStates)), before: v.optional(Uuid), limit: Limit, endpointId: v.optional(Uuid) });

export const DeliveryPage = v.object({ items: v.array(Delivery), nextCursor: v.nullable(Uuid) });
export const EndpointList = v.object({ items: v.array(Endpoint) });

export const EventTypeList = v.pipe(
  v.object({
    items: v.array(
      v.object({
        type: EventType,
        description: v.string(),
        schema: v.pipe(v.record(v.string(), v.unknown()), v.description('JSON Schema (2020-12) of the event’s data; the same as the OpenAPI component `<Type>EventData`')),
        example: v.pipe(v.record(v.string(), v.unknown()), v.description('a data object that validates against the schema')),
      }),
    ),
  }),
  v.title('WebhookEventTypeList'),
);

export const RecoverBody = v.strictObject({
  since: v.pipe(DateTime, v.description('the oldest creation time of the deliveries to recover; at most 30 days back')),
  until: v.optional(v.pipe(DateTime, v.description('deliveries created before this time; default now'))),
});

export const RecoveryParams = v.strictObject({ id: Uuid, recoveryId: Uuid });

export const Recovery = v.pipe(
  v.object({
    id: Uuid,
    endpointId: Uuid,
    since: DateTime,
    until: DateTime,
    state: v.picklist(['running', 'finished']),
    counts: v.object({
      matched: v.pipe(Int, v.description('dead deliveries created in the window, found so far')),
      requeued: v.pipe(Int, v.description('those given a new attempt (the others were at the manual retry limit)')),
    }),
    createdAt: DateTime,
    finishedAt: v.nullable(DateTime),
  }),
  v.title('WebhookRecovery'),
);
export type Recovery = v.InferOutput<typeof Recovery>;
