import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys, RECONCILE_SHARDS } from '../../../shared/table/keys.ts';
import type { LocalState } from '../schemas.ts';
import { backoffAt } from '../state.ts';

/** What the reconciler reads of a due intent from the index (ALL projection), enough to judge and postpone it. */
export interface DueEntry {
  tenantId: string;
  id: string;
  connectionId: string;
  version: number;
  localState: LocalState;
  reconcileDueAt: string;
  reconcileAttempts: number;
}

const PAGE = 200;

/**
 * The due intents of each shard, oldest due first, starting at `startShard` and reading at most
 * `perShard` of each: past the first page, so that one tenant's many due intents at the head of a
 * shard do not hide another tenant's behind them.
 */
export const readDue = async (now: Date, startShard: number, perShard: number): Promise<DueEntry[]> => {
  const found: DueEntry[] = [];
  for (let i = 0; i < RECONCILE_SHARDS; i++) {
    const shard = (startShard + i) % RECONCILE_SHARDS;
    let startKey: Record<string, unknown> | undefined;
    let read = 0;
    do {
      const page = await table().send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'gsi2',
          KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
          ExpressionAttributeValues: { ':pk': keys.invoiceReconcilePartition(shard), ':now': `${nowIso(now)}#~` },
          ProjectionExpression: 'tenantId, id, connectionId, version, localState, reconcileDueAt, reconcileAttempts',
          Limit: Math.min(PAGE, perShard - read),
          ExclusiveStartKey: startKey,
        }),
      );
      const items = (page.Items ?? []) as DueEntry[];
      read += items.length;
      found.push(...items.map((item) => ({ ...item, reconcileAttempts: item.reconcileAttempts ?? 0 })));
      startKey = page.LastEvaluatedKey;
    } while (startKey && read < perShard);
  }
  return found;
};

/** Changes the intent's place in the due index, only if nobody moved the intent since it was read. */
const updateIfUnchanged = async (entry: DueEntry, update: string, values: Record<string, unknown>): Promise<boolean> => {
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.invoiceIntent(entry.tenantId, entry.id),
        UpdateExpression: update,
        ConditionExpression: 'version = :version AND localState = :state AND reconcileDueAt = :seen',
        ExpressionAttributeValues: { ':version': entry.version, ':state': entry.localState, ':seen': entry.reconcileDueAt, ...values },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

/** A look that failed: the next one 2, 4, 8 … minutes later, at most an hour (persisted, so every run sees it). */
export const postpone = (entry: DueEntry, now: Date): Promise<boolean> => {
  const attempts = entry.reconcileAttempts + 1;
  const dueAt = backoffAt(attempts, now);
  return updateIfUnchanged(entry, 'SET reconcileDueAt = :due, reconcileAttempts = :attempts, gsi2sk = :sk', {
    ':due': dueAt,
    ':attempts': attempts,
    ':sk': keys.invoiceReconcileDue(entry.id, dueAt).gsi2sk,
  });
};

/**
 * The intent's connection is revoked (or gone): no look can reach the provider again, so it
 * leaves the due index. It stays readable as it is; `reconcile` answers 409 connection_revoked.
 */
export const holdOff = (entry: DueEntry): Promise<boolean> => updateIfUnchanged(entry, 'SET reconcileDueAt = :none REMOVE gsi2pk, gsi2sk', { ':none': null });
