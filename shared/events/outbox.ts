import * as v from 'valibot';
import { DAY_SECONDS, epochSeconds, nowIso } from '../clock.ts';
import { newId } from '../ids.ts';
import { keys } from '../table/keys.ts';
import { tableName } from '../table/client.ts';
import type { Write } from '../table/transaction.ts';
import { ENVELOPE_VERSION, eventDataSchemas, type EventData, type EventType } from './catalogue.ts';

/** Events are kept as long as the deliveries that point at them (30 days). */
export const EVENT_RETENTION_SECONDS = 30 * DAY_SECONDS;

export interface OutboxEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  tenantId: string;
  occurredAt: string;
  version: number;
  data: EventData<T>;
  /** Only for webhook.test: the one destination it goes to, and the delivery made for it. */
  target?: { endpointId: string; deliveryId: string };
}

/** The item kind the stream consumers pick out. */
export const EVENT_ENTITY = 'event';

/**
 * The outbox write for an event caused by a change: it joins the change's transaction, and the
 * table stream carries it on to webhooks and the tracking view. Data is parsed through the
 * catalogue's schema, so no field outside the specification leaves the service.
 */
export const outboxEvent = <T extends EventType>(
  tenantId: string,
  type: T,
  data: EventData<T>,
  now: Date,
  options: { id?: string; target?: OutboxEvent['target'] } = {},
): { event: OutboxEvent<T>; write: Write } => {
  const event: OutboxEvent<T> = {
    id: options.id ?? newId(),
    type,
    tenantId,
    occurredAt: nowIso(now),
    version: ENVELOPE_VERSION,
    data: v.parse(eventDataSchemas[type], data) as EventData<T>,
    ...(options.target ? { target: options.target } : {}),
  };
  return {
    event,
    write: {
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.event(event.id), ...keys.eventByTime(event.id, event.occurredAt), entity: EVENT_ENTITY, ...event, expiresAt: epochSeconds(now) + EVENT_RETENTION_SECONDS },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
  };
};

/** Reads an event back from a stream image or a GetItem. */
export const toOutboxEvent = (item: Record<string, unknown>): OutboxEvent => ({
  id: item.id as string,
  type: item.type as EventType,
  tenantId: item.tenantId as string,
  occurredAt: item.occurredAt as string,
  version: item.version as number,
  data: item.data as OutboxEvent['data'],
  ...(item.target ? { target: item.target as OutboxEvent['target'] } : {}),
});
