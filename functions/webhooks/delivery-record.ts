import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { DAY_SECONDS, epochSeconds, nowIso } from '../../shared/clock.ts';
import type { OutboxEvent } from '../../shared/events/outbox.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { snapshotOf, type DestinationSnapshot, type EndpointRecord } from './endpoint-record.ts';
import type { AttemptLogEntry, Delivery, DeliveryState } from './schemas.ts';
import { DELIVERY_RETENTION_DAYS, MAX_ATTEMPTS } from './settings.ts';

/** A delivery as stored: the API fields, the exact body to sign, its log, and the attempt lease. */
export interface DeliveryRecord extends Delivery {
  tenantId: string;
  payload: string;
  attemptLog: AttemptLogEntry[];
  /** Entries left out of the middle of a long log (its first and latest are kept). */
  attemptLogOmitted: number;
  leaseToken: string | null;
  expiresAt: number;
  /** The destination as last read for this delivery; absent on deliveries made before it was kept. */
  destination?: DestinationSnapshot;
}

/**
 * The same event and destination always give the same delivery id (a UUIDv7 whose time is the
 * event's and whose random part is a hash of both ids), so a stream record handed over twice
 * makes one delivery, and ids still sort by time for pages.
 */
export const deliveryIdFor = (eventId: string, endpointId: string, occurredAt: string): string => {
  const random = createHash('sha256').update(`${eventId}:${endpointId}`).digest().subarray(0, 16);
  return uuidv7({ msecs: new Date(occurredAt).getTime(), random: new Uint8Array(random), seq: 0 });
};

/** The time a UUIDv7 was made: tells a delivery past retention (410) from one never made (404). */
export const createdAtOfId = (id: string): Date => new Date(parseInt(id.replace(/-/g, '').slice(0, 12), 16));

/** The envelope of the specification, serialised once: every attempt signs the same bytes. */
export const envelopeOf = (event: OutboxEvent): string =>
  JSON.stringify({ id: event.id, type: event.type, timestamp: event.occurredAt, tenantId: event.tenantId, version: event.version, data: event.data });

export const toDeliveryRecord = (item: Record<string, unknown>): DeliveryRecord => ({
  id: item.deliveryId as string,
  tenantId: item.tenantId as string,
  endpointId: item.endpointId as string,
  eventId: item.eventId as string,
  eventType: item.eventType as Delivery['eventType'],
  state: item.state as DeliveryState,
  mode: item.mode as Delivery['mode'],
  attempts: item.attempts as number,
  maxAttempts: item.maxAttempts as number,
  manualRetries: item.manualRetries as number,
  nextAttemptAt: (item.nextAttemptAt as string | null) ?? null,
  lastAttemptAt: (item.lastAttemptAt as string | null) ?? null,
  lastStatus: (item.lastStatus as number | null) ?? null,
  lastOutcome: (item.lastOutcome as Delivery['lastOutcome']) ?? null,
  succeededAt: (item.succeededAt as string | null) ?? null,
  deadAt: (item.deadAt as string | null) ?? null,
  createdAt: item.createdAt as string,
  payload: item.payload as string,
  // Entries written before these fields were kept read as null.
  attemptLog: ((item.attemptLog as AttemptLogEntry[]) ?? []).map((entry) => ({ ...entry, retryAfterSeconds: entry.retryAfterSeconds ?? null, responseExcerpt: entry.responseExcerpt ?? null })),
  attemptLogOmitted: (item.attemptLogOmitted as number | undefined) ?? 0,
  leaseToken: (item.leaseToken as string | null) ?? null,
  expiresAt: item.expiresAt as number,
  ...(item.destination ? { destination: item.destination as DestinationSnapshot } : {}),
});

/** The delivery as stored now (strongly consistent), or undefined; expiry is the caller's to judge. */
export const findDeliveryRecord = async (tenantId: string, deliveryId: string): Promise<DeliveryRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.delivery(tenantId, deliveryId), ConsistentRead: true }));
  return Item ? toDeliveryRecord(Item) : undefined;
};

export const toDelivery = (record: DeliveryRecord): Delivery => ({
  id: record.id,
  endpointId: record.endpointId,
  eventId: record.eventId,
  eventType: record.eventType,
  state: record.state,
  mode: record.mode,
  attempts: record.attempts,
  maxAttempts: record.maxAttempts,
  manualRetries: record.manualRetries,
  nextAttemptAt: record.nextAttemptAt,
  lastAttemptAt: record.lastAttemptAt,
  lastStatus: record.lastStatus,
  lastOutcome: record.lastOutcome,
  succeededAt: record.succeededAt,
  deadAt: record.deadAt,
  createdAt: record.createdAt,
});

export const isExpired = (record: Pick<DeliveryRecord, 'expiresAt'>, now: Date): boolean => record.expiresAt <= epochSeconds(now);

/**
 * A new pending delivery of `event` to one destination, due now. Given the destination as read
 * (and when that read began), the delivery carries its snapshot, so the first attempt need not
 * read it again (functions/webhooks/worker/destination.ts).
 */
export const newDelivery = (event: OutboxEvent, endpoint: string | { record: EndpointRecord; readAt: Date }, now: Date): DeliveryRecord => {
  const createdAt = nowIso(now);
  const endpointId = typeof endpoint === 'string' ? endpoint : endpoint.record.id;
  return {
    id: deliveryIdFor(event.id, endpointId, event.occurredAt),
    tenantId: event.tenantId,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    state: 'pending',
    mode: 'auto',
    attempts: 0,
    maxAttempts: MAX_ATTEMPTS,
    manualRetries: 0,
    nextAttemptAt: createdAt,
    lastAttemptAt: null,
    lastStatus: null,
    lastOutcome: null,
    succeededAt: null,
    deadAt: null,
    createdAt,
    payload: envelopeOf(event),
    attemptLog: [],
    attemptLogOmitted: 0,
    leaseToken: null,
    expiresAt: epochSeconds(now) + DELIVERY_RETENTION_DAYS * DAY_SECONDS,
    ...(typeof endpoint === 'string' ? {} : { destination: snapshotOf(endpoint.record, endpoint.readAt) }),
  };
};

/** Creates the delivery unless it exists (a repeated stream record); the caller learns which. */
export const putNewDelivery = (record: DeliveryRecord): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.delivery(record.tenantId, record.id),
        ...keys.deliveryByEndpoint(record.endpointId, record.id),
        ...keys.deliveryDue(record.id, record.nextAttemptAt!),
        entity: 'delivery',
        deliveryId: record.id,
        ...Object.fromEntries(Object.entries(record).filter(([k]) => k !== 'id')),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
});
