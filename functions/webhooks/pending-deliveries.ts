import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import type { EndPendingMessage } from '../../shared/ports/queue.ts';
import { ports } from '../../shared/ports/registry.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';

export type EndOutcome = EndPendingMessage['endPending']['outcome'];

/**
 * Deliveries of the destination's history read per page (DynamoDB's Limit counts them before the
 * filter keeps the pending ones). A page is one message of the attempts queue, so a destination
 * with 30 days of busy history never holds one stream batch or one worker for long.
 * `WEBHOOK_END_PENDING_PAGE_SIZE` lets tests make pages small.
 */
export const endPendingPageSize = (): number => Number(process.env.WEBHOOK_END_PENDING_PAGE_SIZE ?? 500);

/**
 * A destination that stops taking notifications (deleted, disabled by failures) hands the ending
 * of its pending deliveries to the attempts queue: the first page's message, nothing read here.
 */
export const startEndingPending = (tenantId: string, endpointId: string, outcome: EndOutcome): Promise<void> =>
  ports().queue.send({ tenantId, endPending: { endpointId, outcome, cursor: null } });

const endOne = (tenantId: string, deliveryId: string, outcome: EndOutcome, now: Date): Promise<unknown> =>
  table()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(tenantId, deliveryId),
        UpdateExpression: 'SET #state = :dead, deadAt = :now, lastOutcome = :outcome, nextAttemptAt = :null REMOVE gsi2pk, gsi2sk',
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':dead': 'dead', ':now': nowIso(now), ':outcome': outcome, ':null': null, ':pending': 'pending' },
      }),
    )
    .catch((error: Error) => {
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });

/**
 * One page: the pending deliveries among the next `endPendingPageSize()` of the destination's
 * history (gsi1, from the cursor) end `dead` with the reason as `lastOutcome`, then the next
 * page goes to the queue. Each write is conditioned on `pending`, so an attempt claimed meanwhile
 * keeps its own outcome, and a page handed over twice changes nothing (its next page is sent
 * twice, and each of those ends nothing more the second time).
 * Returns the cursor of the next page, null at the end.
 */
export const endPendingPage = async (message: EndPendingMessage, now = new Date()): Promise<string | null> => {
  const { tenantId, endPending } = message;
  const { Items = [], LastEvaluatedKey } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      FilterExpression: '#state = :pending AND tenantId = :tenant',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':pk': keys.deliveryByEndpointPartition(endPending.endpointId), ':pending': 'pending', ':tenant': tenantId },
      ExclusiveStartKey: endPending.cursor ? { ...keys.deliveryByEndpoint(endPending.endpointId, endPending.cursor), ...keys.delivery(tenantId, endPending.cursor) } : undefined,
      Limit: endPendingPageSize(),
    }),
  );
  // Ten at a time: a page of pending deliveries ends in a few round trips, not one per item.
  for (let i = 0; i < Items.length; i += 10) {
    await Promise.all(Items.slice(i, i + 10).map((item) => endOne(tenantId, item.deliveryId as string, endPending.outcome, now)));
  }
  const cursor = LastEvaluatedKey ? String(LastEvaluatedKey.gsi1sk).slice(keys.deliveryPrefix.length) : null;
  if (cursor) await ports().queue.send({ tenantId, endPending: { ...endPending, cursor } });
  return cursor;
};
