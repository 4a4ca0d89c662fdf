import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { ports } from '../../../shared/ports/registry.ts';
import { DUE_SHARDS } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';

/** The sweeper's action in the audit log (a job names its own, decisions 12). */
export const SWEEP_AUDIT_ACTION = 'resendOverdueWebhookDelivery';

/** Only deliveries overdue by this much: fresher ones are most likely on their way already. */
const graceSeconds = (): number => Number(process.env.WEBHOOK_SWEEP_GRACE_SECONDS ?? 30);
const MAX_PER_RUN = 1000;

/**
 * Run every minute: finds deliveries whose attempt is overdue (pending past nextAttemptAt, or
 * delivering past its lease, as when a worker died mid-attempt or a schedule was never made)
 * through the sparse due index, and sends them to the queue again. Claims make repeats harmless.
 */
export const sweep = async (now = new Date(), runId = newId()): Promise<number> => {
  const cutoff = `${nowIso(new Date(now.getTime() - graceSeconds() * 1000))}$`;
  let sent = 0;
  for (let shard = 0; shard < DUE_SHARDS && sent < MAX_PER_RUN; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await table().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :cutoff',
          ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':cutoff': cutoff },
          ExclusiveStartKey: startKey,
          Limit: 100,
        }),
      );
      for (const item of Items) {
        const tenantId = item.tenantId as string;
        const deliveryId = item.deliveryId as string;
        // The change is a message, which cannot join a table transaction: the entry goes first,
        // so no resend is ever missing from the log (a crash before the send leaves the delivery
        // overdue, and the next run resends it with an entry of its own).
        await commit([auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: SWEEP_AUDIT_ACTION, resourceId: deliveryId, requestId: runId, now })]);
        await ports().queue.send({ tenantId, deliveryId });
        sent++;
      }
      startKey = LastEvaluatedKey;
    } while (startKey && sent < MAX_PER_RUN);
  }
  if (sent > 0) logger.info('overdue webhook deliveries sent again', { sent });
  return sent;
};

export const handler = async (_event: unknown, context?: Context): Promise<{ sent: number }> => ({ sent: await sweep(new Date(), context?.awsRequestId) });
