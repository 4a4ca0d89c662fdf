import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../shared/audit/entry.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/logger.ts';
import type { BillingProvider } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { DUE_SHARDS, keys } from '../../shared/table/keys.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { activeConnection, sessionOf } from '../integrations/connection-record.ts';
import { InvalidTransitionError } from './errors.ts';
import { findIntent, getIntent, type IntentRecord } from './intent-record.ts';
import { ISSUE_DEADLINE_MS, lookUp } from './provider-calls.ts';
import { documentStates, moveTo, NOT_SENT } from './state.ts';

/**
 * An issue still inside its own deadline may yet apply: a look-up then would see nothing and
 * send the intent back to approved under a call that is about to succeed. Past this, the issue
 * has answered or died.
 */
export const IN_FLIGHT_MS = ISSUE_DEADLINE_MS + 2_000;

const RECONCILABLE = new Set(['submitting', 'unknown', 'provider_recorded']);

export interface ReconcileOptions {
  provider?: BillingProvider;
  inFlightMs?: number;
}

/**
 * decisions 9: look the document up by correlationId (never creating). Found: the intent takes
 * the document's states; not found: back to approved (not_sent), to be issued again under the
 * same salesId. A recorded document with a pending tax state is asked again.
 */
export const reconcileIntent = async (intent: IntentRecord, now: Date, options: ReconcileOptions = {}): Promise<{ record: IntentRecord; writes: Write[] }> => {
  if (!RECONCILABLE.has(intent.localState)) throw new InvalidTransitionError('reconciled', intent.localState);
  if (intent.localState === 'provider_recorded' && intent.taxState !== 'pending') return { record: intent, writes: [] };
  const submission = intent.submission!;
  if (intent.localState === 'submitting' && now.getTime() - Date.parse(submission.submittedAt) < (options.inFlightMs ?? IN_FLIGHT_MS)) {
    return { record: intent, writes: [] };
  }
  const connection = await activeConnection(intent.tenantId, intent.connectionId);
  const provider = options.provider ?? billingProvider(connection.origin);
  const session = await sessionOf(connection);
  const document =
    intent.localState === 'provider_recorded' && intent.externalDocumentId
      ? await provider.getDocument(session, intent.externalDocumentId)
      : await lookUp(provider, session, intent, submission);
  if (document) return moveTo(intent, documentStates(document), now, { externalDocumentId: document.id });
  if (intent.localState === 'provider_recorded') return { record: intent, writes: [] };
  return moveTo(intent, NOT_SENT, now);
};

/** The intents due for a look (submitting, unknown, tax pending), oldest due first, across tenants. */
const dueIntents = async (now: Date, limit: number): Promise<Array<{ tenantId: string; id: string }>> => {
  const found: Array<{ tenantId: string; id: string }> = [];
  for (let shard = 0; shard < DUE_SHARDS; shard++) {
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

export const reconcileById = async (tenantId: string, intentId: string, now: Date, options: ReconcileOptions = {}) =>
  reconcileIntent(await getIntent(tenantId, intentId), now, options);
