import { addSeconds, nowIso } from '../../shared/clock.ts';
import type { BillingProvider, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { activeConnection, type ConnectionRecord } from '../integrations/connection-record.ts';
import { InvalidTransitionError } from './errors.ts';
import { claimScopeOf } from './guides/claims.ts';
import { lookUpShipping } from './guides/shipping-lookup.ts';
import { getIntent, type IntentRecord } from './intent-record.ts';
import { issueDeadlineMs, lookUp, providerSession, shippingTypeOf } from './provider-calls.ts';
import { backoffAt, documentStates, moveTo, NOT_SENT, RECONCILE_AFTER_SECONDS, UNKNOWN } from './state.ts';

/**
 * An issue still inside its own deadline may yet apply: a look-up then would see nothing and
 * send the intent back to approved under a call that is still running. Past this, the issue
 * has answered or died.
 */
export const inFlightMs = (): number => issueDeadlineMs() + 2_000;

export const RECONCILABLE = new Set(['submitting', 'unknown', 'provider_recorded']);

export interface ReconcileOptions {
  provider?: BillingProvider;
  inFlightMs?: number;
  /** The intent's active connection and its session, when the caller already holds them (the reconciler, per run). */
  connection?: ConnectionRecord;
  session?: ProviderSession;
  /** The caller's deadline: the look's calls end with it. */
  signal?: AbortSignal;
  /** How long a guide's look-up reads pages before it saves its place (LOOKUP_BUDGET_MS). */
  lookupBudgetMs?: number;
}

type Moved = { record: IntentRecord; writes: Write[] };

/**
 * decisions 9: look the document up by correlationId (never creating). Found: the intent takes
 * the document's states; not found: back to approved (not_sent), to be issued again under the
 * same salesId. A recorded document with a pending tax state is asked again. An intent whose
 * document the provider has (a recorded one, or the credit note of an accepted return) never
 * goes back: a look that finds nothing only moves its next look later. A dispatch guide is looked
 * up by its shipping instead (decisions 16, reconcileGuide).
 */
export const reconcileIntent = async (intent: IntentRecord, now: Date, options: ReconcileOptions = {}): Promise<Moved> => {
  if (!RECONCILABLE.has(intent.localState)) throw new InvalidTransitionError('reconciled', intent.localState);
  if (intent.localState === 'provider_recorded' && intent.taxState !== 'pending') return { record: intent, writes: [] };
  const submission = intent.submission!;
  if (intent.localState === 'submitting' && now.getTime() - Date.parse(submission.submittedAt) < (options.inFlightMs ?? inFlightMs())) {
    return { record: intent, writes: [] };
  }
  const connection = options.connection ?? (await activeConnection(intent.tenantId, intent.connectionId));
  const provider = options.provider ?? billingProvider(connection.origin);
  const session = options.session ?? (await providerSession(connection));
  const signal = options.signal;
  if (intent.documentKind === 'dispatch_guide' && !intent.externalDocumentId) return reconcileGuide(intent, now, provider, session, connection, signal, options.lookupBudgetMs);
  const document = intent.externalDocumentId ? await provider.getDocument(session, intent.externalDocumentId, { signal }) : await lookUp(provider, session, intent, submission, signal);
  if (document) return moveTo(intent, documentStates(document), now, { externalDocumentId: document.id, documentNumber: document.number });
  const exists = intent.localState === 'provider_recorded' || Boolean(intent.providerReturnId) || Boolean(intent.externalDocumentId);
  if (exists) return moveTo(intent, { localState: intent.localState, providerState: intent.providerState, taxState: intent.taxState }, now);
  return moveTo(intent, NOT_SENT, now);
};

/**
 * A guide whose send's outcome is unknown (docs/guides-exactly-once.md): its shipping is looked
 * up by day, office and type and matched on its own fields. One match: the intent takes its guide.
 * None, on a look that began after the answer window: back to approved, to be sent again. Two or
 * more it cannot tell apart: held `unknown`, off the reconciler, for an admin (resolve). A look
 * that runs out of time saves its place and comes back at the next run.
 */
const reconcileGuide = async (
  intent: IntentRecord,
  now: Date,
  provider: BillingProvider,
  session: ProviderSession,
  connection: ConnectionRecord,
  signal?: AbortSignal,
  budgetMs?: number,
): Promise<Moved> => {
  const submission = intent.submission!;
  const lookup = intent.shippingLookup ?? null;
  const shippingTypeId = lookup?.shippingTypeId ?? (connection.issueSettings ? shippingTypeOf(intent, connection.issueSettings) : null);
  // Held for an admin: a member's reconcile looks again, the reconciler does not come back by itself.
  const outcome = shippingTypeId
    ? await lookUpShipping({ provider, session, intent, submission, shippingTypeId, claimScope: claimScopeOf(connection), now, sendDeadlineMs: issueDeadlineMs(), signal, budgetMs })
    : { kind: 'ambiguous' as const, guideIds: [] as string[] };
  const base = { shippingTypeId: shippingTypeId ?? '', progress: null, ambiguous: null };
  const stay = { localState: intent.localState === 'submitting' ? ('unknown' as const) : intent.localState, providerState: UNKNOWN.providerState, taxState: UNKNOWN.taxState };
  switch (outcome.kind) {
    case 'found': {
      const document = await provider.getDocument(session, outcome.guideId, { signal });
      // Its guide is not readable yet: it exists, so the intent keeps it and reads it later.
      if (!document) return moveTo(intent, stay, now, { externalDocumentId: outcome.guideId, shippingLookup: base });
      return moveTo(intent, documentStates(document), now, { externalDocumentId: document.id, documentNumber: document.number, shippingLookup: base });
    }
    case 'absent':
      return moveTo(intent, NOT_SENT, now, { shippingLookup: base });
    case 'paused':
      return moveTo(intent, stay, now, { shippingLookup: { ...base, progress: outcome.progress } }, { dueAt: nowIso(addSeconds(now, RECONCILE_AFTER_SECONDS)) });
    case 'not_yet': {
      // Not before the window ends: an earlier look could not prove anything.
      const backoff = backoffAt(stay.localState === intent.localState ? intent.reconcileAttempts + 1 : 0, now);
      return moveTo(intent, stay, now, { shippingLookup: base }, { dueAt: outcome.windowEndsAt > backoff ? outcome.windowEndsAt : backoff });
    }
    case 'ambiguous':
      return moveTo(intent, stay, now, { shippingLookup: { ...base, ambiguous: outcome.guideIds } }, { dueAt: null });
  }
};

export const reconcileById = async (tenantId: string, intentId: string, now: Date, options: ReconcileOptions = {}) =>
  reconcileIntent(await getIntent(tenantId, intentId), now, options);
