import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { opsKeys } from '../table/keys-operations.ts';
import { keys, OUTBOX_SHARDS } from '../table/keys.ts';
import { table, tableName } from '../table/client.ts';
import { queryAll } from '../table/query-all.ts';
import { toOutboxEvent } from './outbox.ts';

export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<void | DynamoDBBatchResponse>;

export interface ReplayRange {
  from: Date;
  to: Date;
  tenantId?: string;
}

export interface ReplayResult {
  events: number;
  /** Items the events are about (orders, routes), handed over as they are now. */
  items: number;
}

const HOUR_MS = 3_600_000;
const BATCH = 100;

/** Every outbox item that occurred in [from, to), oldest first, read hour by hour from gsi1. */
export const outboxItems = async ({ from, to, tenantId }: ReplayRange): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = [];
  const start = new Date(Math.floor(from.getTime() / HOUR_MS) * HOUR_MS);
  for (let hour = start.getTime(); hour < to.getTime(); hour += HOUR_MS) {
    for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
      const events = queryAll({
        TableName: tableName(),
        IndexName: 'gsi1',
        // The `#` after each bound keeps whole timestamps: `{occurredAt}#{id}` sorts by time.
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to',
        FilterExpression: tenantId ? 'tenantId = :tenant' : undefined,
        ExpressionAttributeValues: {
          ':pk': keys.eventHour(new Date(hour).toISOString().slice(0, 13), shard),
          ':from': `${from.toISOString()}#`,
          ':to': `${new Date(to.getTime() - 1).toISOString()}$`,
          ...(tenantId ? { ':tenant': tenantId } : {}),
        },
      });
      for await (const item of events) found.push(item);
    }
  }
  return found.sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)));
};

/** The current items an event is about, as the stream carried them with the event. */
const subjectsOf = async (item: Record<string, unknown>): Promise<Record<string, unknown>[]> => {
  const event = toOutboxEvent(item);
  const data = event.data as { orderId?: string; routeId?: string };
  const subjects = [data.orderId && opsKeys.order(event.tenantId, data.orderId), data.routeId && opsKeys.route(event.tenantId, data.routeId)].filter(Boolean) as Array<{ pk: string; sk: string }>;
  const found = await Promise.all(subjects.map(async (Key) => (await table().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item));
  return found.filter((i): i is Record<string, unknown> => i !== undefined);
};

const record = (eventName: 'INSERT' | 'MODIFY', item: Record<string, unknown>, sequence: number): DynamoDBRecord => ({
  eventID: `replay-${sequence}`,
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: marshall({ pk: item.pk, sk: item.sk }) as never,
    NewImage: marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true }) as never,
    SequenceNumber: String(sequence).padStart(21, '0'),
  },
});

/**
 * Hands the outbox items of a time range to the stream consumers again, as the table stream did
 * the first time: each event as an INSERT, followed by the current items it is about (its order
 * or route) as a MODIFY, so the tracking projection rebuilds their views. For when a consumer
 * gave up on a batch. Consumers are idempotent (the fan-out's delivery ids derive from event and
 * destination; the projection rebuilds from current items), so replaying twice changes nothing.
 * A consumer that reports a failed record gets the rest of the batch again from that record.
 */
export const replayOutbox = async (range: ReplayRange, consumers: Record<string, StreamConsumer>): Promise<ReplayResult> => {
  const events = await outboxItems(range);
  const records: DynamoDBRecord[] = [];
  let items = 0;
  for (const event of events) {
    records.push(record('INSERT', event, records.length + 1));
    for (const subject of await subjectsOf(event)) {
      records.push(record('MODIFY', subject, records.length + 1));
      items++;
    }
  }
  for (const [name, consumer] of Object.entries(consumers)) {
    for (let i = 0; i < records.length; i += BATCH) {
      let batch = records.slice(i, i + BATCH);
      for (let tries = 1; batch.length > 0; tries++) {
        const failures = (await consumer({ Records: batch }))?.batchItemFailures ?? [];
        if (failures.length === 0) break;
        if (tries >= 3) throw new Error(`stream consumer ${name} failed on a replayed batch three times`);
        const first = batch.findIndex((r) => failures.some((f) => f.itemIdentifier === r.dynamodb?.SequenceNumber));
        batch = batch.slice(Math.max(first, 0));
      }
    }
  }
  return { events: events.length, items };
};
