import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys, RECONCILE_SHARDS } from '../../../shared/table/keys.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { findIntent } from '../intent-record.ts';
import { RECONCILABLE, reconcileIntent, type ReconcileOptions } from '../reconcile.ts';

// Apart from reconcile.ts on purpose: the operations' module graph must not build the logger at
// import time (the local stack imports every group before it sets LOG_LEVEL).

/** The intents due for a look (submitting, unknown, tax pending), oldest due first, across tenants. */
const dueIntents = async (now: Date, limit: number): Promise<Array<{ tenantId: string; id: string }>> => {
  const found: Array<{ tenantId: string; id: string }> = [];
  for (let shard = 0; shard < RECONCILE_SHARDS; shard++) {
    const { Items = [] } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk <= :now',
        ExpressionAttributeValues: { ':pk': keys.invoiceReconcilePartition(shard), ':now': `${nowIso(now)}#~` },
        ProjectionExpression: 'tenantId, id',
        Limit: limit,
      }),
    );
    found.push(...Items.map((item) => ({ tenantId: item.tenantId as string, id: item.id as string })));
  }
  return found;
};

export interface ReconcilerRun {
  looked: number;
  moved: number;
  failed: number;
}

/**
 * The scheduled reconciler (every minute in the cloud, also in the local stack). Each intent is
 * committed on its own; one that fails (provider down, a concurrent change) is left due and
 * looked at again next run.
 */
/** The reconciler's action in the audit log (a job names its own, decisions 12). */
export const RECONCILE_AUDIT_ACTION = 'reconcileInvoiceIntentScheduled';

export const runReconciler = async (now: Date = new Date(), options: ReconcileOptions & { limit?: number; runId?: string } = {}): Promise<ReconcilerRun> => {
  const runId = options.runId ?? newId();
  const run: ReconcilerRun = { looked: 0, moved: 0, failed: 0 };
  for (const due of await dueIntents(now, options.limit ?? 100)) {
    run.looked++;
    try {
      const intent = await findIntent(due.tenantId, due.id);
      if (!intent || !RECONCILABLE.has(intent.localState)) continue;
      const { record, writes } = await reconcileIntent(intent, now, options);
      if (writes.length === 0) continue;
      await commit([...writes, auditWrite({ tenantId: record.tenantId, actorId: SYSTEM_ACTOR_ID, action: RECONCILE_AUDIT_ACTION, resourceId: record.id, requestId: runId, now })]);
      run.moved++;
    } catch (error) {
      run.failed++;
      logger.warn('invoice intent not reconciled, left due', { invoiceIntentId: due.id, error: (error as Error).message });
    }
  }
  return run;
};

