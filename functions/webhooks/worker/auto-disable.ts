import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DISABLE_AFTER_DEAD_DELIVERIES } from '../settings.ts';

/** The worker's action in the audit log when a destination disables itself (decisions 5 and 12). */
export const AUTO_DISABLE_AUDIT_ACTION = 'disableFailingWebhookEndpoint';

/**
 * After a delivery dies: at 20 dead deliveries in a row the destination disables itself
 * (decisions 5). The condition makes this idempotent, and a count already past 20 after a
 * crash is caught by the next death.
 */
export const disableIfFailing = async (tenantId: string, endpointId: string, now: Date, runId = newId()): Promise<boolean> => {
  const notDue = new Error('not due for disabling');
  try {
    // A change made by a job: its audit entry, with the system actor, commits with it.
    await commit([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpoint(tenantId, endpointId),
            UpdateExpression: 'SET #state = :disabled, disabledReason = :failures, version = version + :one, updatedAt = :now',
            ConditionExpression: '#state = :active AND consecutiveFailures >= :max',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':disabled': 'disabled', ':failures': 'failures', ':one': 1, ':now': nowIso(now), ':active': 'active', ':max': DISABLE_AFTER_DEAD_DELIVERIES },
          },
        },
        onConditionFailed: () => notDue,
      },
      auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: AUTO_DISABLE_AUDIT_ACTION, resourceId: endpointId, requestId: runId, now }),
    ]);
  } catch (error) {
    if (error === notDue) return false;
    throw error;
  }
  logger.warn('webhook destination disabled after repeated failures', { tenantId, endpointId });
  await stopPendingDeliveries(tenantId, endpointId, now);
  return true;
};

/** Pending deliveries of a disabled destination end dead with `destination_disabled`. */
const stopPendingDeliveries = async (tenantId: string, endpointId: string, now: Date): Promise<void> => {
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: '#state = :pending AND tenantId = :tenant',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pk': keys.deliveryByEndpointPartition(endpointId), ':pending': 'pending', ':tenant': tenantId },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of Items) {
      await table()
        .send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keys.delivery(tenantId, item.deliveryId as string),
            UpdateExpression: 'SET #state = :dead, deadAt = :now, lastOutcome = :outcome, nextAttemptAt = :null REMOVE gsi2pk, gsi2sk',
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':dead': 'dead', ':now': nowIso(now), ':outcome': 'destination_disabled', ':null': null, ':pending': 'pending' },
          }),
        )
        .catch((error: Error) => {
          if (error.name !== 'ConditionalCheckFailedException') throw error;
        });
    }
    startKey = LastEvaluatedKey;
  } while (startKey);
};
