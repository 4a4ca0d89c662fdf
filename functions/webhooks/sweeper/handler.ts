import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { ports } from '../../../shared/ports/registry.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import { DUE_SHARDS, keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit, type Write } from '../../../shared/table/transaction.ts';
import { RECOVERY_LOCK_ENTITY } from '../entities.ts';

/** The sweeper's action in the audit log (a job names its own, decisions 12). */
export const SWEEP_AUDIT_ACTION = 'resendOverdueWebhookDelivery';
/** Its action when it resumes a recovery whose lease ran out (the resourceId is the recovery's). */
export const RESUME_AUDIT_ACTION = 'resumeWebhookRecovery';

/** Only deliveries overdue by this much: fresher ones are most likely on their way already. */
const graceSeconds = (): number => Number(process.env.WEBHOOK_SWEEP_GRACE_SECONDS ?? 30);
/**
 * How long a resent delivery stays off the sweep. A message held back by a throttle comes back by
 * itself after the queue's visibility timeout (six times the worker's 30 s); resending it every
 * minute only piled up copies that each spent receives and could reach the dead-letter queue
 * (and its alarm) for an attempt that was made.
 */
const resendSeconds = (): number => Number(process.env.WEBHOOK_SWEEP_RESEND_SECONDS ?? 300);
const MAX_PER_RUN = 1000;
/**
 * Each shard has its own share of a run: a backlog in one shard (one busy tenant's deliveries
 * all hash there) cannot use up the run and leave the other shards' deliveries unsent.
 */
const PER_SHARD = Math.floor(MAX_PER_RUN / DUE_SHARDS);

/** A resent delivery's due time, moved to the end of the resend interval if it is still the one read. */
const moveDue = (item: Record<string, unknown>, deliveryId: string, now: Date): Write => {
  const moved = keys.deliveryDue(deliveryId, nowIso(new Date(now.getTime() + resendSeconds() * 1000)));
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET gsi2sk = :moved',
        ConditionExpression: 'gsi2pk = :pk AND gsi2sk = :seen',
        ExpressionAttributeValues: { ':moved': moved.gsi2sk, ':pk': moved.gsi2pk, ':seen': item.gsi2sk },
      },
    },
  };
};

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
      // The change is a message, which cannot join a table transaction: the entry goes first, so
      // no resend is ever missing from the log (a crash before the send leaves the item due,
      // a delivery after the resend interval).
      // A delivery's due time moves past the resend interval in the same write, conditioned on
      // the due time read: one a worker claimed or settled meanwhile, or another run moved, is
      // not sent. A lock keeps its lease as due time (its resume takes the lease over), and the
      // sweeper may not write the tenant partition that holds it.
      const entry = auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: lock ? RESUME_AUDIT_ACTION : SWEEP_AUDIT_ACTION, resourceId, requestId: runId, now });
      try {
        await commit(lock ? [entry] : [entry, moveDue(item, resourceId, now)]);
      } catch (error) {
        if (error instanceof StateConflictError) continue;
        throw error;
      }
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
 * through the sparse due index, and sends them to the queue again, each at most once per resend
 * interval. Claims make repeats harmless.
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
