import { SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { StateConflictError, VersionMismatchError } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import type { BillingProvider } from '../../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { importQueue, type GuideIssueMessage } from '../../../shared/ports/import-queue.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { queryAll } from '../../../shared/table/query-all.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { activeConnection } from '../../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../../integrations/errors.ts';
import { ConnectionNotReadyError } from '../errors.ts';
import { findIntent, type IntentRecord } from '../intent-record.ts';
import { issueIntent } from '../issue.ts';
import { cancelGuideIfUnsent } from './cancel-guides.ts';
import { toStopGuide, type StopGuideRecord } from './guard.ts';
import { spacedProvider } from './spaced-provider.ts';

/** The audit actions of guides issued outside a request (decisions 12: a job names its own). */
export const GUIDE_WORKER_AUDIT_ACTION = 'issueDispatchGuide';
export const GUIDE_RECONCILER_AUDIT_ACTION = 'issueDispatchGuideScheduled';

/**
 * No guide is started after this in one delivery: the worker's timeout (150 s) leaves room for the
 * last one (8 s deadline per call). What is left goes on in a new message.
 */
export const GUIDE_BUDGET_MS = 90_000;
/** Guides of a route ending `unknown` in a row before the delivery stops (the provider is failing): the reconciler takes the rest. */
const UNKNOWN_IN_A_ROW = 2;

export interface GuideIssueOptions {
  provider?: BillingProvider;
  deadlineMs?: number;
  budgetMs?: number;
  /** Who the audit entry names as the request (a run id, a message id). */
  requestId?: string;
  action?: string;
}

/** The route's stop guides (its partition's `GUIDE#` items), strongly consistent. */
export const routeGuides = async (tenantId: string, routeId: string): Promise<StopGuideRecord[]> => {
  const found: StopGuideRecord[] = [];
  for await (const item of queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': opsKeys.routePartition(tenantId, routeId), ':prefix': opsKeys.stopGuidePrefix },
    ConsistentRead: true,
  })) {
    found.push(toStopGuide(item));
  }
  return found;
};

/**
 * Whether the guide's goods no longer leave with it (decisions 19): its order is cancelled, or its
 * stop is no longer open (delivered, failed, cancelled, removed, or on a route that was cancelled).
 * Each of these is final, so a guide read here as still wanted can only lose to a cancel that
 * cancels it in its own transaction (conditioned on the guide's version), never be sent past one.
 * Also finishes a route cancel whose write-back died before reaching the guide (route-cancel.ts).
 */
const goodsStay = async (intent: IntentRecord): Promise<boolean> => {
  if (!intent.routeId || !intent.stopId || !intent.orderId) return true;
  const read = async (key: Record<string, unknown>) =>
    (await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true, ProjectionExpression: '#state', ExpressionAttributeNames: { '#state': 'state' } }))).Item?.state;
  const [route, stop, order] = await Promise.all([
    read(opsKeys.route(intent.tenantId, intent.routeId)),
    read(opsKeys.stop(intent.tenantId, intent.routeId, intent.stopId)),
    read(opsKeys.order(intent.tenantId, intent.orderId)),
  ]);
  return order !== 'cancelled' && stop === 'pending' && route !== 'cancelled';
};

/**
 * Issues one approved guide intent on the invoices' exactly-once path (issueIntent: `submitting`
 * committed first, salesId = correlationId), its provider calls spaced per connection. Answers
 * the intent as it then stands, or undefined when there was nothing to issue (another worker or
 * the reconciler took it: their `submitting` commit won).
 */
export const issueGuideIntent = async (intent: IntentRecord, now: Date, options: GuideIssueOptions = {}): Promise<IntentRecord | undefined> => {
  if (intent.documentKind !== 'dispatch_guide' || intent.localState !== 'approved') return undefined;
  // Never sent for a cancelled order or a closed stop: cancelled instead (an approved guide is not at the provider).
  if (!(await goodsStay(intent))) {
    await cancelGuideIfUnsent(intent.tenantId, intent.id, now);
    return undefined;
  }
  const connection = await activeConnection(intent.tenantId, intent.connectionId);
  const provider = spacedProvider(options.provider ?? billingProvider(connection.origin), connection.id);
  try {
    const actor = { actorId: SYSTEM_ACTOR_ID, requestId: options.requestId ?? newId(), action: options.action ?? GUIDE_WORKER_AUDIT_ACTION };
    const { record, writes } = await issueIntent(intent.tenantId, intent.id, now, actor, { provider, deadlineMs: options.deadlineMs });
    await commit(writes);
    return record;
  } catch (error) {
    // Taken meanwhile (its `submitting` commit lost to another's): whoever took it settles it.
    if ((error instanceof StateConflictError || error instanceof VersionMismatchError) && !(error instanceof ConnectionRevokedError)) return undefined;
    throw error;
  }
};

export type RouteIssueOutcome = 'done' | 'continued' | 'provider_failing';

/**
 * The worker's part (import queue message `guides`): the route's approved guides one after
 * another. A crash anywhere loses nothing: a guide it left `approved` is still due at the
 * reconciler (createRouteGuides set its first look), one left `submitting` is settled there, and
 * the message comes back after its visibility timeout.
 */
export const issueRouteGuides = async (message: GuideIssueMessage, options: GuideIssueOptions = {}): Promise<RouteIssueOutcome> => {
  const started = Date.now();
  const budget = options.budgetMs ?? GUIDE_BUDGET_MS;
  let unknownInRow = 0;
  let tried = 0;
  const unusable = new Set<string>();
  for (const guide of await routeGuides(message.tenantId, message.routeId)) {
    if (guide.localState !== 'approved') continue;
    // Checked only once a guide was tried: a delivery that started late still moves the route on.
    if (tried > 0 && Date.now() - started >= budget) {
      await importQueue().send(message);
      return 'continued';
    }
    const intent = await findIntent(message.tenantId, guide.intentId);
    if (!intent || unusable.has(intent.connectionId)) continue;
    tried++;
    try {
      const record = await issueGuideIntent(intent, new Date(), options);
      unknownInRow = record?.localState === 'unknown' ? unknownInRow + 1 : 0;
      if (unknownInRow >= UNKNOWN_IN_A_ROW) return 'provider_failing';
    } catch (error) {
      // Revoked, or its settings removed: no guide of this connection can go now (they stay due at the reconciler).
      if (!(error instanceof ConnectionRevokedError || error instanceof ConnectionNotReadyError)) throw error;
      unusable.add(intent.connectionId);
    }
  }
  return 'done';
};
