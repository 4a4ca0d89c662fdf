import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { queryAll } from '../../../shared/table/query-all.ts';
import { ACTIVE_CONNECTIONS_PARTITION, keys, RECONCILE_SHARDS } from '../../../shared/table/keys.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import type { LocalState } from '../schemas.ts';
import { backoffAt } from '../state.ts';

/** What the reconciler reads of a due intent from the index (ALL projection), enough to judge and postpone it. */
export interface DueEntry {
  tenantId: string;
  id: string;
  connectionId: string;
  version: number;
  localState: LocalState;
  documentKind: string;
  reconcileDueAt: string;
  reconcileAttempts: number;
  /** The index partition it was read on (a legacy shard's entries are moved to their connection's). */
  gsi2pk: string;
}

export interface ConnectionRef {
  tenantId: string;
  connectionId: string;
}

const PAGE = 200;
const ENTRY_FIELDS = 'tenantId, id, connectionId, version, localState, documentKind, reconcileDueAt, reconcileAttempts, gsi2pk';

const query = async (pk: string, now: Date, limit: number, filterApproved = false): Promise<DueEntry[]> => {
  const found: DueEntry[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
        ...(filterApproved ? { FilterExpression: 'localState = :approved' } : {}),
        ExpressionAttributeValues: { ':pk': pk, ':now': `${nowIso(now)}#~`, ...(filterApproved ? { ':approved': 'approved' } : {}) },
        ProjectionExpression: ENTRY_FIELDS,
        Limit: Math.min(PAGE, limit - found.length),
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as DueEntry[]) found.push({ ...item, reconcileAttempts: item.reconcileAttempts ?? 0 });
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length < limit);
  return found;
};

/** Every active connection of every tenant (the sparse `PCONN#ACTIVE` partition): whose due intents a run reads. */
export const activeConnections = async (): Promise<ConnectionRef[]> => {
  const found: ConnectionRef[] = [];
  const items = queryAll({
    TableName: tableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': ACTIVE_CONNECTIONS_PARTITION },
    ProjectionExpression: 'tenantId, connectionId',
  });
  for await (const item of items) found.push({ tenantId: item.tenantId as string, connectionId: item.connectionId as string });
  return found;
};

/** One connection's due intents, oldest due first, at most `limit`; only the approved ones (guides to issue) with `approvedOnly`. */
export const readConnectionDue = (connection: ConnectionRef, now: Date, limit: number, approvedOnly = false): Promise<DueEntry[]> =>
  query(keys.invoiceReconcileConnection(connection.tenantId, connection.connectionId), now, limit, approvedOnly);

/**
 * What is left on the shared shards intents were due on before the index went per connection,
 * oldest first, at most `perShard` of each. The run moves these to their connection's partition
 * (or takes them off the index); once the shards are empty this reads 32 empty pages.
 */
export const readLegacyDue = async (now: Date, perShard: number): Promise<DueEntry[]> => {
  const found: DueEntry[] = [];
  for (let shard = 0; shard < RECONCILE_SHARDS; shard++) found.push(...(await query(keys.invoiceReconcilePartition(shard), now, perShard)));
  return found;
};

const unchanged = (entry: DueEntry) => ({
  ConditionExpression: 'version = :version AND localState = :state AND reconcileDueAt = :seen',
  values: { ':version': entry.version, ':state': entry.localState, ':seen': entry.reconcileDueAt },
});

/** Changes the intent's place in the due index, only if nobody moved the intent since it was read. */
const updateIfUnchanged = async (entry: DueEntry, update: string, values: Record<string, unknown>): Promise<boolean> => {
  const condition = unchanged(entry);
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.invoiceIntent(entry.tenantId, entry.id),
        UpdateExpression: update,
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeValues: { ...condition.values, ...values },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};

const dueKeys = (entry: DueEntry, dueAt: string) => keys.invoiceReconcileDue(entry.tenantId, entry.connectionId, entry.id, dueAt);

/** A look that failed: the next one 2, 4, 8 … minutes later, at most an hour (persisted, so every run sees it). */
export const postpone = (entry: DueEntry, now: Date): Promise<boolean> => {
  const attempts = entry.reconcileAttempts + 1;
  const dueAt = backoffAt(attempts, now);
  const due = dueKeys(entry, dueAt);
  return updateIfUnchanged(entry, 'SET reconcileDueAt = :due, reconcileAttempts = :attempts, gsi2pk = :pk, gsi2sk = :sk', {
    ':due': dueAt,
    ':attempts': attempts,
    ':pk': due.gsi2pk,
    ':sk': due.gsi2sk,
  });
};

/**
 * The same move as `postpone`, to `dueAt`, as a write of a group's transaction (a connection
 * without its guide settings: its guides wait together, with one audit entry).
 */
export const postponeWrite = (entry: DueEntry, dueAt: string): Write => {
  const condition = unchanged(entry);
  const due = dueKeys(entry, dueAt);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.invoiceIntent(entry.tenantId, entry.id),
        UpdateExpression: 'SET reconcileDueAt = :due, reconcileAttempts = :attempts, gsi2pk = :pk, gsi2sk = :sk',
        ConditionExpression: condition.ConditionExpression,
        ExpressionAttributeValues: { ...condition.values, ':due': dueAt, ':attempts': entry.reconcileAttempts + 1, ':pk': due.gsi2pk, ':sk': due.gsi2sk },
      },
    },
  };
};

/** A legacy shard's entry goes to its connection's partition, due as it was: the next run reads it there. */
export const moveToConnection = (entry: DueEntry): Promise<boolean> => {
  const due = dueKeys(entry, entry.reconcileDueAt);
  return updateIfUnchanged(entry, 'SET gsi2pk = :pk, gsi2sk = :sk', { ':pk': due.gsi2pk, ':sk': due.gsi2sk });
};

/**
 * The intent's connection is revoked (or gone): no look can reach the provider again, so it
 * leaves the due index. It stays readable as it is; `reconcile` answers 409 connection_revoked.
 */
export const holdOff = (entry: DueEntry): Promise<boolean> => updateIfUnchanged(entry, 'SET reconcileDueAt = :none REMOVE gsi2pk, gsi2sk', { ':none': null });
