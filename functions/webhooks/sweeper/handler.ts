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
import { RECOVERY_LOCK_ENTITY } from '../entities.ts';

/** The sweeper's action in the audit log (a job names its own, decisions 12). */
export const SWEEP_AUDIT_ACTION = 'resendOverdueWebhookDelivery';
/** Its action when it resumes a recovery whose lease ran out (the resourceId is the recovery's). */
export const RESUME_AUDIT_ACTION = 'resumeWebhookRecovery';

/** Only deliveries overdue by this much: fresher ones are most likely on their way already. */
const graceSeconds = (): number => Number(process.env.WEBHOOK_SWEEP_GRACE_SECONDS ?? 30);
const MAX_PER_RUN = 1000;
/**
 * Each shard has its own share of a run: a backlog in one shard (one busy tenant's deliveries
 * all hash there) cannot use up the run and leave the other shards' deliveries unsent.
 */
const PER_SHARD = Math.floor(MAX_PER_RUN / DUE_SHARDS);

/** Sends up to PER_SHARD overdue deliveries of one shard, oldest due first. */
const sweepShard = async (shard: number, cutoff: string, now: Date, runId: string): Promise<number> => {
  let sent = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :cutoff',
        ExpressionAttributeValues: { ':pk': `DUE#${shard}`, ':cutoff': cutoff },
        ExclusiveStartKey: startKey,
        Limit: Math.min(100, PER_SHARD - sent),
      }),
    );
    for (const item of Items) {
      const tenantId = item.tenantId as string;
      // A recovery's lock whose lease ran out: its worker takes the lease over (one of several
      // such messages wins) and resumes the recovery where it stands.
      const lock = item.entity === RECOVERY_LOCK_ENTITY;
      const resourceId = (lock ? item.recoveryId : item.deliveryId) as string;
      // The change is a message, which cannot join a table transaction: the entry goes first,
      // so no resend is ever missing from the log (a crash before the send leaves the delivery
      // overdue, and the next run resends it with an entry of its own).
      await commit([auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: lock ? RESUME_AUDIT_ACTION : SWEEP_AUDIT_ACTION, resourceId, requestId: runId, now })]);
      if (lock) {
        await ports().queue.send({ tenantId, recoveryPage: { endpointId: item.endpointId as string, recoveryId: resourceId, step: item.step as number, lease: item.leaseUntil as string } });
      } else {
        await ports().queue.send({ tenantId, deliveryId: resourceId });
      }
      sent++;
    }
    startKey = LastEvaluatedKey;
  } while (startKey && sent < PER_SHARD);
  return sent;
};

/**
 * Run every minute: finds deliveries whose attempt is overdue (pending past nextAttemptAt, or
 * delivering past its lease, as when a worker died mid-attempt or a schedule was never made)
 * through the sparse due index, and sends them to the queue again. Claims make repeats harmless.
 * The same index holds running recoveries' locks, due when their lease runs out (a page message
 * lost or dead-lettered): each is sent to the worker to be resumed.
 * The shards are read side by side, each with its own budget.
 */
export const sweep = async (now = new Date(), runId = newId()): Promise<number> => {
  const cutoff = `${nowIso(new Date(now.getTime() - graceSeconds() * 1000))}$`;
  const perShard = await Promise.all(Array.from({ length: DUE_SHARDS }, (_, shard) => sweepShard(shard, cutoff, now, runId)));
  const sent = perShard.reduce((a, b) => a + b, 0);
  if (sent > 0) logger.info('overdue webhook deliveries sent again', { sent, perShard });
  return sent;
};

export const handler = async (_event: unknown, context?: Context): Promise<{ sent: number }> => ({ sent: await sweep(new Date(), context?.awsRequestId) });
