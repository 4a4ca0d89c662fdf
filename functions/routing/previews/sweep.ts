import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { previewQueue } from '../../../shared/ports/preview-queue.ts';
import { tableName, table } from '../../../shared/table/client.ts';
import { opsKeys, PREVIEW_DUE_PARTITION_PREFIX, PREVIEW_DUE_SHARDS } from '../../../shared/table/keys-operations.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { endPreviewWrites, PreviewOvertakenError } from './finish.ts';
import { AUDIT_TIMED_OUT, queuedDue } from './lifecycle.ts';

/** Previews looked at per shard and run: far more than are ever overdue at once; the next run goes on. */
const PER_SHARD = 100;

export interface SweepRun {
  timedOut: number;
  requeued: number;
}

/** decisions 15: past its time limit plus 5 minutes, a preview fails with solver_timeout (audit entry and event). */
const timeOut = async (item: Record<string, unknown>, now: Date, runId: string): Promise<boolean> => {
  const { writes } = endPreviewWrites(
    item.tenantId as string,
    item,
    {
      state: 'failed',
      failure: { code: 'solver_timeout', message: 'The preview was not solved within its time limit plus 5 minutes.' },
      routes: [],
      unassigned: [],
      totals: null,
      elapsedMs: null,
      stoppedBy: null,
    },
    // Unchanged since the index was read: a worker that ends it meanwhile wins.
    { now, action: AUDIT_TIMED_OUT, requestId: runId, condition: { expression: 'version = :version', values: { ':version': item.version } } },
  );
  try {
    await commit(writes);
    return true;
  } catch (error) {
    if (error instanceof PreviewOvertakenError) return false;
    throw error;
  }
};

/**
 * A preview whose message was lost (the send after the request's commit failed, or the process
 * died between them) or whose worker died: its message again, and its next look a minute on.
 * The index moves first, under the version read; a send lost after it is made by the next look.
 */
const requeue = async (item: Record<string, unknown>, now: Date): Promise<boolean> => {
  const previewId = item.previewId as string;
  const due = queuedDue(previewId, now, item.deadlineAt as string);
  try {
    await commit([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: opsKeys.preview(item.tenantId as string, previewId),
            UpdateExpression: 'SET gsi2sk = :gsk',
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':gsk': due.gsi2sk, ':version': item.version },
          },
        },
        onConditionFailed: () => new PreviewOvertakenError(`preview ${previewId} changed`),
      },
    ]);
  } catch (error) {
    if (error instanceof PreviewOvertakenError) return false;
    throw error;
  }
  await previewQueue().send({ tenantId: item.tenantId as string, previewId });
  return true;
};

const sweepShard = async (shard: number, now: Date, runId: string): Promise<SweepRun> => {
  const run: SweepRun = { timedOut: 0, requeued: 0 };
  const at = nowIso(now);
  const { Items = [] } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :cutoff',
      ExpressionAttributeValues: { ':pk': `${PREVIEW_DUE_PARTITION_PREFIX}${shard}`, ':cutoff': `${at}#~` },
      Limit: PER_SHARD,
    }),
  );
  for (const item of Items) {
    if (item.state !== 'queued' && item.state !== 'solving') continue;
    if ((item.deadlineAt as string) <= at) {
      if (await timeOut(item, now, runId)) run.timedOut++;
    } else if (item.state === 'queued' || (item.leaseUntil as string) <= at) {
      if (await requeue(item, now)) run.requeued++;
    }
  }
  return run;
};

/**
 * Run every minute: the previews due on the sweeper's sparse index (opsKeys.previewDue), shard
 * by shard side by side, never a scan. Past their deadline they fail with `solver_timeout`;
 * before it, a queued one (or a solving one whose worker's lease ended) gets its message again.
 */
export const sweepPreviews = async (now = new Date(), runId = newId()): Promise<SweepRun> => {
  const runs = await Promise.all(Array.from({ length: PREVIEW_DUE_SHARDS }, (_, shard) => sweepShard(shard, now, runId)));
  const total = runs.reduce((a, b) => ({ timedOut: a.timedOut + b.timedOut, requeued: a.requeued + b.requeued }), { timedOut: 0, requeued: 0 });
  if (total.timedOut + total.requeued > 0) logger.info('route previews swept', { ...total });
  return total;
};
