import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import type { AttemptOutcome } from './transport/outcomes.ts';

/**
 * A destination that stops taking notifications (disabled, deleted) ends its pending deliveries
 * `dead` with the reason as `lastOutcome`. Each write is conditioned on `pending`, so an attempt
 * claimed meanwhile keeps its own outcome, and running this twice changes nothing.
 */
export const endPendingDeliveries = async (tenantId: string, endpointId: string, outcome: Extract<AttemptOutcome, 'destination_disabled' | 'destination_deleted'>, now: Date): Promise<void> => {
  const pending = queryAll({
    TableName: tableName(),
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: '#state = :pending AND tenantId = :tenant',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':pk': keys.deliveryByEndpointPartition(endpointId), ':pending': 'pending', ':tenant': tenantId },
  });
  for await (const item of pending) {
    await table()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.delivery(tenantId, item.deliveryId as string),
          UpdateExpression: 'SET #state = :dead, deadAt = :now, lastOutcome = :outcome, nextAttemptAt = :null REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':dead': 'dead', ':now': nowIso(now), ':outcome': outcome, ':null': null, ':pending': 'pending' },
        }),
      )
      .catch((error: Error) => {
        if (error.name !== 'ConditionalCheckFailedException') throw error;
      });
  }
};
