import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { addSeconds, nowIso } from '../../../shared/clock.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { ProviderNotConfiguredError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { findConnectionRecord, type ConnectionRecord } from '../../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../../integrations/errors.ts';
import { GUIDE_RECONCILER_AUDIT_ACTION, issueGuideIntent } from '../guides/issue-guides.ts';
import { findIntent } from '../intent-record.ts';
import { issueDeadlineMs, providerSession, withDeadline } from '../provider-calls.ts';
import { RECONCILABLE, reconcileIntent, type ReconcileOptions } from '../reconcile.ts';
import { MAX_BACKOFF_SECONDS } from '../state.ts';
import { activeConnections, holdOff, moveToConnection, postpone, postponeWrite, readConnectionDue, readLegacyDue, type DueEntry } from './due-index.ts';

// Apart from reconcile.ts on purpose: the operations' module graph must not build the logger at
// import time (the local stack imports every group before it sets LOG_LEVEL).

/** The reconciler's action in the audit log (a job names its own, decisions 12). */
export const RECONCILE_AUDIT_ACTION = 'reconcileInvoiceIntentScheduled';

/** What one run takes on (docs/invoicing.md, "Reconciler"). */
export const RUN_LIMITS = {
  /** No intent is started after this; the function's timeout (50 s) leaves room for the last look (8 s). */
  budgetMs: 40_000,
  /** Intents of one tenant looked at per run, over all its connections: every tenant's oldest come first in each run. */
  perTenant: 20,
  /** Entries read per legacy shard per run (intents due before the index went per connection), to move them. */
  readPerShard: 1_000,
  /** Approved guides of a connection without its guide settings postponed per run (one transaction with its audit entry). */
  groupSize: 99,
  /** Provider look-ups at once. */
  concurrency: 8,
  /** Index reads at once (one per active connection). */
  readConcurrency: 16,
  /** One intent's look, however many pages it reads: past it the look failed (its next one later). */
  get lookDeadlineMs(): number {
    return issueDeadlineMs();
  },
};

/** The audit action of a group of guides postponed because their connection has no guide settings (resource: the connection). */
export const POSTPONE_AUDIT_ACTION = 'postponeDispatchGuidesScheduled';
/** How long such a group waits before the reconciler looks at the connection again. */
export const NOT_READY_WAIT_SECONDS = MAX_BACKOFF_SECONDS;

export interface ReconcilerRun {
  /** Intents looked up at the provider. */
  looked: number;
  moved: number;
  failed: number;
  /** Intents whose next look went later without a call, their connection failing in this run. */
  postponed: number;
  /** Intents of revoked connections taken off the due index. */
  held: number;
  /** Approved guides of connections without their guide settings, postponed as a group (one audit entry per connection). */
  notReady: number;
  /** Entries moved from the legacy shards to their connection's partition. */
  migrated: number;
}

export type RunOptions = ReconcileOptions & Partial<typeof RUN_LIMITS> & { runId?: string };

/** Errors that say the connection cannot reach the provider now, not that one intent is at fault. */
const connectionWide = (error: unknown): boolean =>
  error instanceof ProviderUnavailableError || error instanceof ProviderTokenRejectedError || error instanceof ConnectionRevokedError || error instanceof ProviderNotConfiguredError;

const connectionKey = (entry: { tenantId: string; connectionId: string }): string => `${entry.tenantId}#${entry.connectionId}`;

/** One tenant's intents after another's, so a run that ends early has reached every tenant. */
const roundRobin = (groups: DueEntry[][]): DueEntry[] => {
  const out: DueEntry[] = [];
  const total = groups.reduce((n, g) => n + g.length, 0);
  for (let i = 0; out.length < total; i++) for (const group of groups) if (group[i]) out.push(group[i]!);
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
  const record = (entry: { tenantId: string; connectionId: string }) => {
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

/** An approved guide is due to be issued, which needs the connection's guide settings (a look-up does not). */
const needsGuideSettings = (entry: DueEntry): boolean => entry.documentKind === 'dispatch_guide' && entry.localState === 'approved';

const issuesGuides = (connection: ConnectionRecord): boolean => !!connection.issueSettings?.documentTypeIds.dispatchGuide && !!connection.issueSettings.shippingTypeIds;

/**
 * The scheduled reconciler (every minute in the cloud, also in the local stack). Each active
 * connection's due intents are read from its own index partition, and each tenant gets a share of
 * the run (its oldest due first, over all its connections), so no tenant's backlog keeps another
 * tenant's intents from being read. Each intent is committed on its own. A look that fails moves
 * the intent's next look later (persisted backoff), and the rest of that connection's due intents
 * with it, without calling. The approved guides of a connection without its guide settings are
 * postponed together for an hour, with one audit entry naming the connection. The run has a
 * bounded time, so nothing at the head of the index can keep the others waiting.
 */
export const runReconciler = async (now: Date = new Date(), options: RunOptions = {}): Promise<ReconcilerRun> => {
  const started = Date.now();
  const limits = { ...RUN_LIMITS };
  for (const key of Object.keys(RUN_LIMITS) as Array<keyof typeof RUN_LIMITS>) limits[key] = options[key] ?? RUN_LIMITS[key];
  const runId = options.runId ?? newId();
  const run: ReconcilerRun = { looked: 0, moved: 0, failed: 0, postponed: 0, held: 0, notReady: 0, migrated: 0 };
  const inTime = () => Date.now() - started < limits.budgetMs;
  const connections = connectionCache();

  // Intents due on the shared shards of before: to their connection's partition (the next run reads them there), or off the index.
  await pool(await readLegacyDue(now, limits.readPerShard), limits.readConcurrency, async (entry) => {
    if (!inTime()) return;
    if (!usable(await connections.record(entry))) {
      if (await holdOff(entry)) run.held++;
    } else if (await moveToConnection(entry)) run.migrated++;
  });

  // Each active connection's oldest due intents, at most a tenant's share of each.
  const byTenant = new Map<string, DueEntry[]>();
  const notReady: ConnectionRecord[] = [];
  await pool(await activeConnections(), limits.readConcurrency, async (ref) => {
    if (!inTime()) return;
    const entries = await readConnectionDue(ref, now, limits.perTenant);
    if (entries.length === 0) return;
    const connection = await connections.record(ref);
    // Revoked since the index was read: its partition is not read again (its intents stay readable; reconcile answers 409).
    if (!usable(connection)) return;
    let lookable = entries;
    if (!issuesGuides(connection) && entries.some(needsGuideSettings)) {
      notReady.push(connection);
      lookable = entries.filter((entry) => !needsGuideSettings(entry));
    }
    byTenant.set(ref.tenantId, [...(byTenant.get(ref.tenantId) ?? []), ...lookable]);
  });

  // Guides that cannot go until an admin sets the guide settings again: postponed together, the tenant told once.
  await pool(notReady, limits.readConcurrency, async (connection) => {
    if (!inTime()) return;
    const group = await readConnectionDue({ tenantId: connection.tenantId, connectionId: connection.id }, now, limits.groupSize, true);
    if (group.length === 0) return;
    const dueAt = nowIso(addSeconds(now, NOT_READY_WAIT_SECONDS));
    const audit = auditWrite({ tenantId: connection.tenantId, actorId: SYSTEM_ACTOR_ID, action: POSTPONE_AUDIT_ACTION, resourceId: connection.id, requestId: runId, now });
    try {
      await commit([...group.map((entry) => postponeWrite(entry, dueAt)), audit]);
      run.notReady += group.length;
    } catch (error) {
      // One of them moved meanwhile (cancelled with its order, say): the group is read afresh by the next run.
      if (!(error instanceof StateConflictError)) throw error;
      logger.warn('dispatch guides of a connection without guide settings not postponed, next run', { connectionId: connection.id });
    }
  });

  const shares: DueEntry[][] = [];
  const beyondShare: DueEntry[] = [];
  for (const entries of byTenant.values()) {
    const sorted = entries.sort((a, b) => (a.reconcileDueAt < b.reconcileDueAt ? -1 : a.reconcileDueAt > b.reconcileDueAt ? 1 : 0));
    shares.push(sorted.slice(0, limits.perTenant));
    beyondShare.push(...sorted.slice(limits.perTenant));
  }

  const failing = new Set<string>();
  const later = async (entry: DueEntry) => {
    if (await postpone(entry, now)) run.postponed++;
  };
  await pool(roundRobin(shares), limits.concurrency, async (entry) => {
    if (!inTime()) return; // left due as it was: the next run starts where this one stopped
    if (failing.has(connectionKey(entry))) return later(entry);
    run.looked++;
    try {
      const intent = await findIntent(entry.tenantId, entry.id);
      // A dispatch guide nobody issued (its message lost, its worker dead) or sent back to approved: issued here, same path.
      if (intent?.localState === 'approved' && intent.documentKind === 'dispatch_guide') {
        // Stamped with the time of this send (the run's clock moved on by what the run took), not the run's start.
        const sendAt = new Date(now.getTime() + (Date.now() - started));
        const issued = await issueGuideIntent(intent, sendAt, { provider: options.provider, deadlineMs: limits.lookDeadlineMs, requestId: runId, action: GUIDE_RECONCILER_AUDIT_ACTION });
        if (issued) run.moved++;
        if (issued?.localState === 'unknown') failing.add(connectionKey(entry));
        return;
      }
      if (!intent || !RECONCILABLE.has(intent.localState)) return;
      const connection = (await connections.record(entry))!;
      const session = await connections.session(entry, connection);
      const { record, writes } = await withDeadline((signal) => reconcileIntent(intent, now, { ...options, connection, session, signal }), limits.lookDeadlineMs);
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
