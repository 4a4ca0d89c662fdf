import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { ProviderNotConfiguredError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { RECONCILE_SHARDS } from '../../../shared/table/keys.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { findConnectionRecord, type ConnectionRecord } from '../../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../../integrations/errors.ts';
import { GUIDE_RECONCILER_AUDIT_ACTION, issueGuideIntent } from '../guides/issue-guides.ts';
import { findIntent } from '../intent-record.ts';
import { ISSUE_DEADLINE_MS, providerSession, withDeadline } from '../provider-calls.ts';
import { RECONCILABLE, reconcileIntent, type ReconcileOptions } from '../reconcile.ts';
import { holdOff, postpone, readDue, type DueEntry } from './due-index.ts';

// Apart from reconcile.ts on purpose: the operations' module graph must not build the logger at
// import time (the local stack imports every group before it sets LOG_LEVEL).

/** The reconciler's action in the audit log (a job names its own, decisions 12). */
export const RECONCILE_AUDIT_ACTION = 'reconcileInvoiceIntentScheduled';

/** What one run takes on (docs/invoicing.md, "Reconciler"). */
export const RUN_LIMITS = {
  /** No intent is started after this; the function's timeout (50 s) leaves room for the last look (8 s). */
  budgetMs: 40_000,
  /** Intents of one tenant looked at per run: a tenant with many due intents cannot take every run. */
  perTenant: 20,
  /** Due index entries read per shard per run. */
  readPerShard: 1_000,
  /** Provider look-ups at once. */
  concurrency: 8,
  /** One intent's look, however many pages it reads: past it the look failed (its next one later). */
  lookDeadlineMs: ISSUE_DEADLINE_MS,
};

export interface ReconcilerRun {
  /** Intents looked up at the provider. */
  looked: number;
  moved: number;
  failed: number;
  /** Intents whose next look went later without a call, their connection failing in this run. */
  postponed: number;
  /** Intents of revoked connections taken off the due index. */
  held: number;
}

export type RunOptions = ReconcileOptions & Partial<typeof RUN_LIMITS> & { runId?: string; startShard?: number };

/** Errors that say the connection cannot reach the provider now, not that one intent is at fault. */
const connectionWide = (error: unknown): boolean =>
  error instanceof ProviderUnavailableError || error instanceof ProviderTokenRejectedError || error instanceof ConnectionRevokedError || error instanceof ProviderNotConfiguredError;

const connectionKey = (entry: DueEntry): string => `${entry.tenantId}#${entry.connectionId}`;

/** One tenant's intents after another's, so a run that ends early has reached every tenant. */
const roundRobin = (groups: DueEntry[][]): DueEntry[] => {
  const out: DueEntry[] = [];
  for (let i = 0; out.length < groups.reduce((n, g) => n + g.length, 0); i++) for (const group of groups) if (group[i]) out.push(group[i]!);
  return out;
};

const pool = async <T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
};

/** Connections (and their opened sessions) read once per run, however many of their intents are due. */
const connectionCache = () => {
  const records = new Map<string, Promise<ConnectionRecord | undefined>>();
  const sessions = new Map<string, Promise<ProviderSession>>();
  const record = (entry: DueEntry) => {
    const key = connectionKey(entry);
    if (!records.has(key)) records.set(key, findConnectionRecord(entry.tenantId, entry.connectionId));
    return records.get(key)!;
  };
  const session = (entry: DueEntry, connection: ConnectionRecord) => {
    const key = connectionKey(entry);
    if (!sessions.has(key)) sessions.set(key, providerSession(connection));
    return sessions.get(key)!;
  };
  return { record, session };
};

const usable = (connection: ConnectionRecord | undefined): connection is ConnectionRecord =>
  connection !== undefined && connection.state === 'active' && connection.sealedToken !== null;

/**
 * The scheduled reconciler (every minute in the cloud, also in the local stack). Each intent is
 * committed on its own. A look that fails moves the intent's next look later (persisted backoff),
 * and the rest of that connection's due intents with it, without calling; intents of a revoked
 * connection leave the due index; each tenant gets a bounded share of the run, and the run a
 * bounded time, so nothing at the head of the index can keep the others waiting.
 */
export const runReconciler = async (now: Date = new Date(), options: RunOptions = {}): Promise<ReconcilerRun> => {
  const started = Date.now();
  const limits = {
    budgetMs: options.budgetMs ?? RUN_LIMITS.budgetMs,
    perTenant: options.perTenant ?? RUN_LIMITS.perTenant,
    readPerShard: options.readPerShard ?? RUN_LIMITS.readPerShard,
    concurrency: options.concurrency ?? RUN_LIMITS.concurrency,
    lookDeadlineMs: options.lookDeadlineMs ?? RUN_LIMITS.lookDeadlineMs,
  };
  const runId = options.runId ?? newId();
  const run: ReconcilerRun = { looked: 0, moved: 0, failed: 0, postponed: 0, held: 0 };
  const inTime = () => Date.now() - started < limits.budgetMs;
  const connections = connectionCache();

  const startShard = options.startShard ?? Math.floor(now.getTime() / 60_000) % RECONCILE_SHARDS;
  const held: DueEntry[] = [];
  const shares = new Map<string, DueEntry[]>();
  const beyondShare: DueEntry[] = [];
  for (const entry of await readDue(now, startShard, limits.readPerShard)) {
    if (!usable(await connections.record(entry))) held.push(entry);
    else {
      const share = shares.get(entry.tenantId) ?? [];
      shares.set(entry.tenantId, share);
      if (share.length < limits.perTenant) share.push(entry);
      else beyondShare.push(entry);
    }
  }
  await pool(held, limits.concurrency, async (entry) => {
    if (inTime() && (await holdOff(entry))) run.held++;
  });

  const failing = new Set<string>();
  const later = async (entry: DueEntry) => {
    if (await postpone(entry, now)) run.postponed++;
  };
  await pool(roundRobin([...shares.values()]), limits.concurrency, async (entry) => {
    if (!inTime()) return; // left due as it was: the next run starts where this one stopped
    if (failing.has(connectionKey(entry))) return later(entry);
    run.looked++;
    try {
      const intent = await findIntent(entry.tenantId, entry.id);
      // A dispatch guide nobody issued (its message lost, its worker dead) or sent back to approved: issued here, same path.
      if (intent?.localState === 'approved' && intent.documentKind === 'dispatch_guide') {
        const issued = await issueGuideIntent(intent, now, { provider: options.provider, deadlineMs: limits.lookDeadlineMs, requestId: runId, action: GUIDE_RECONCILER_AUDIT_ACTION });
        if (issued) run.moved++;
        if (issued?.localState === 'unknown') failing.add(connectionKey(entry));
        return;
      }
      if (!intent || !RECONCILABLE.has(intent.localState)) return;
      const connection = (await connections.record(entry))!;
      const session = await connections.session(entry, connection);
      const { record, writes } = await withDeadline(reconcileIntent(intent, now, { ...options, connection, session }), limits.lookDeadlineMs);
      if (writes.length === 0) return;
      await commit([...writes, auditWrite({ tenantId: record.tenantId, actorId: SYSTEM_ACTOR_ID, action: RECONCILE_AUDIT_ACTION, resourceId: record.id, requestId: runId, now })]);
      run.moved++;
    } catch (error) {
      run.failed++;
      if (connectionWide(error)) failing.add(connectionKey(entry));
      logger.warn('invoice intent not reconciled, next look later', { invoiceIntentId: entry.id, error: (error as Error).message });
      // Moved meanwhile (a member's reconcile or issue): the condition fails and the intent keeps its new place.
      await postpone(entry, now);
    }
  });
  // What was read beyond a tenant's share of a connection that failed now would fail too: later, without a call.
  await pool(
    beyondShare.filter((entry) => failing.has(connectionKey(entry))),
    limits.concurrency,
    async (entry) => {
      if (inTime()) await later(entry);
    },
  );
  return run;
};
