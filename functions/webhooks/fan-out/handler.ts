import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { EVENT_ENTITY, toOutboxEvent, type OutboxEvent } from '../../../shared/events/outbox.ts';
import { logger } from '../../../shared/logger.ts';
import { ports } from '../../../shared/ports/registry.ts';
import { table } from '../../../shared/table/client.ts';
import { ENDPOINT_ENTITY, RECOVERY_ENTITY } from '../entities.ts';
import { findDeliveryRecord, newDelivery, putNewDelivery, toDeliveryRecord } from '../delivery-record.ts';
import { listEndpointRecords } from '../endpoints.ts';
import { startEndingPending } from '../pending-deliveries.ts';
import { isAboutDestination } from '../operational-events.ts';

type Image = Record<string, unknown>;
const imageOf = (image: unknown): Image | undefined => (image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined);

/** Queues a delivery that has not been attempted yet; a second send of it is harmless (claims). */
const queueIfFresh = async (tenantId: string, deliveryId: string): Promise<void> => {
  const delivery = await findDeliveryRecord(tenantId, deliveryId);
  if (delivery?.state === 'pending' && delivery.attempts === 0) await ports().queue.send({ tenantId, deliveryId });
};

/**
 * One delivery per subscribed active destination. The id is derived from the event and the
 * destination, and the write is conditional, so a stream record handed over twice makes no
 * second delivery.
 */
const fanOut = async (event: OutboxEvent, now: Date): Promise<void> => {
  if (event.target) return queueIfFresh(event.tenantId, event.target.deliveryId);
  const readAt = new Date();
  // An operational event goes to the company's other destinations, never to the one it is about.
  const endpoints = (await listEndpointRecords(event.tenantId, { consistent: true })).filter(
    (e) => e.state === 'active' && e.eventTypes.includes(event.type as never) && !isAboutDestination(event, e.id),
  );
  await Promise.all(
    endpoints.map(async (endpoint) => {
      const delivery = newDelivery(event, { record: endpoint, readAt }, now);
      try {
        await table().send(new PutCommand(putNewDelivery(delivery).item.Put!));
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        return queueIfFresh(event.tenantId, delivery.id);
      }
      await ports().queue.send({ tenantId: event.tenantId, deliveryId: delivery.id });
    }),
  );
};

const route = async (record: DynamoDBRecord, now: Date): Promise<void> => {
  const image = imageOf(record.dynamodb?.NewImage);
  // A deleted destination: its pending deliveries end through the attempts queue, page after
  // page, so a busy destination's 30 days of history never hold up this stream shard.
  if (record.eventName === 'REMOVE') {
    const gone = imageOf(record.dynamodb?.OldImage);
    if (gone?.entity === ENDPOINT_ENTITY) await startEndingPending(gone.tenantId as string, gone.endpointId as string, 'destination_deleted');
    return;
  }
  if (!image) return;
  if (record.eventName === 'INSERT' && image.entity === EVENT_ENTITY) return fanOut(toOutboxEvent(image), now);
  // A new recovery: its first page (the worker sends each next one).
  if (record.eventName === 'INSERT' && image.entity === RECOVERY_ENTITY) {
    return ports().queue.send({ tenantId: image.tenantId as string, recoveryPage: { endpointId: image.endpointId as string, recoveryId: image.recoveryId as string, step: 0 } });
  }
  // A manual retry: a settled delivery made pending again by the API is queued from here. One a
  // recovery requeued (`requeuedBy`) is sent by the recovery's page, at its slot.
  const old = imageOf(record.dynamodb?.OldImage);
  if (record.eventName === 'MODIFY' && image.entity === 'delivery' && image.state === 'pending' && !image.requeuedBy && (old?.state === 'dead' || old?.state === 'succeeded')) {
    const delivery = toDeliveryRecord(image);
    await ports().queue.send({ tenantId: delivery.tenantId, deliveryId: delivery.id });
  }
};

/** The table stream's webhook consumer (event source mapping with ReportBatchItemFailures). */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const now = new Date();
  for (const record of event.Records) {
    try {
      await route(record, now);
    } catch (error) {
      logger.error('webhook fan-out failed; the batch is handed over again from here', { eventID: record.eventID, error: error as Error });
      // Lambda retries from the first failure reported, so the rest of the batch waits for it.
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
    }
  }
  return { batchItemFailures: [] };
};
