import { addSeconds, nowIso } from '../../shared/clock.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import type { ProviderDocument } from '../../shared/ports/billing-provider/port.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { adjustLedger, readLedger, saveLedger } from './credits.ts';
import { releaseGuides } from './from-guides.ts';
import { claimScopeOfIntent, claimWrite } from './guides/claims.ts';
import { guideMoveWrite } from './guides/guard.ts';
import { saveIntent, type IntentRecord } from './intent-record.ts';
import type { LocalState, ProviderState, TaxState } from './schemas.ts';

/** The reconciler runs every minute: an intent left mid-way is due at the next run. */
export const RECONCILE_AFTER_SECONDS = 60;
/** Looks that learn nothing, and failed ones, come again after 1, 2, 4 … minutes, at most hourly. */
export const MAX_BACKOFF_SECONDS = 3600;

/** The next look after `attempts` looks in a row that settled nothing. */
export const backoffAt = (attempts: number, now: Date): string =>
  nowIso(addSeconds(now, Math.min(RECONCILE_AFTER_SECONDS * 2 ** Math.min(attempts, 12), MAX_BACKOFF_SECONDS)));

export interface States {
  localState: LocalState;
  providerState: ProviderState;
  taxState: TaxState;
}

/** provider-chile-v1 (decisions 9): the provider holds it (accepted); informedSii gives the tax state. */
export const documentStates = (document: ProviderDocument): States => {
  if (document.informedSii === 0) return { localState: 'issued', providerState: 'accepted', taxState: 'authorized' };
  if (document.informedSii === 2) return { localState: 'rejected', providerState: 'accepted', taxState: 'rejected' };
  return { localState: 'provider_recorded', providerState: 'accepted', taxState: 'pending' };
};

export const UNKNOWN: States = { localState: 'unknown', providerState: 'unknown', taxState: 'unknown' };
export const REFUSED: States = { localState: 'rejected', providerState: 'rejected', taxState: 'not_submitted' };
export const NOT_SENT: States = { localState: 'approved', providerState: 'not_sent', taxState: 'not_submitted' };

/**
 * When the reconciler should look at an intent in these states next. A dispatch guide sent back
 * to `approved` (nothing found, a 401) stays due too: nobody issues guides by hand, so the
 * reconciler issues it again under the same salesId (docs/dispatch-guides.md).
 */
const dueAt = (states: States, attempts: number, now: Date, kind: IntentRecord['documentKind']): string | null => {
  if (states.localState === 'submitting' || states.localState === 'unknown' || states.localState === 'provider_recorded') return backoffAt(attempts, now);
  if (states.localState === 'approved' && kind === 'dispatch_guide') return backoffAt(attempts, now);
  return null;
};

export interface MoveOptions {
  /** When the reconciler looks next, instead of the states' backoff (a look-up under way: the next run; held for an admin: never). */
  dueAt?: string | null;
}

/**
 * The intent moved to `states` (version + 1), with what the move causes in the same transaction:
 * the event when it becomes issued or rejected, for a rejected credit note the release of the
 * quantities it held on the credited invoice, and for a guide taking a provider document the
 * claim that keeps that document from a second intent. A guide's look-up progress alone is saved
 * without a new version.
 */
export const moveTo = async (
  current: IntentRecord,
  states: States,
  now: Date,
  extra: Partial<Pick<IntentRecord, 'externalDocumentId' | 'submission' | 'providerReturnId' | 'documentNumber' | 'shippingLookup'>> = {},
  options: MoveOptions = {},
): Promise<{ record: IntentRecord; writes: Write[] }> => {
  const sameState = states.localState === current.localState;
  // A poll that learns nothing new only moves the next look: the client's version stays.
  const unchanged =
    sameState &&
    states.providerState === current.providerState &&
    states.taxState === current.taxState &&
    (extra.externalDocumentId ?? current.externalDocumentId) === current.externalDocumentId &&
    (extra.providerReturnId ?? current.providerReturnId ?? null) === (current.providerReturnId ?? null) &&
    (extra.documentNumber ?? current.documentNumber ?? null) === (current.documentNumber ?? null) &&
    extra.submission === undefined;
  const attempts = sameState ? current.reconcileAttempts + 1 : 0;
  const record: IntentRecord = {
    ...current,
    ...states,
    ...extra,
    version: unchanged ? current.version : current.version + 1,
    updatedAt: unchanged ? current.updatedAt : nowIso(now),
    documentNumber: extra.documentNumber ?? current.documentNumber ?? null,
    reconcileDueAt: options.dueAt !== undefined ? options.dueAt : dueAt(states, attempts, now, current.documentKind),
    reconcileAttempts: attempts,
  };
  const writes: Write[] = [saveIntent(record, { version: current.version, localState: current.localState })];
  if (record.documentKind === 'dispatch_guide' && record.externalDocumentId && record.externalDocumentId !== current.externalDocumentId) {
    writes.push(claimWrite(await claimScopeOfIntent(record), record, record.externalDocumentId, record.updatedAt));
  }
  // A guide's stop shows its state and folio: rewritten with every move that changes them.
  if (!unchanged) writes.push(...guideMoveWrite(record));
  if (!sameState && (states.localState === 'issued' || states.localState === 'rejected')) {
    const type = states.localState === 'issued' ? 'finance.invoice.issued' : 'finance.invoice.rejected';
    const data = {
      invoiceIntentId: record.id,
      documentKind: record.documentKind,
      localState: record.localState,
      providerState: record.providerState,
      taxState: record.taxState,
      externalDocumentId: record.externalDocumentId,
    };
    writes.push(outboxEvent(record.tenantId, type, data, now).write);
  }
  if (!sameState && record.documentKind === 'credit_note' && record.creditedInvoiceId && (states.localState === 'rejected' || states.localState === 'cancelled')) {
    writes.push(saveLedger(adjustLedger(await readLedger(record.tenantId, record.creditedInvoiceId), record.lines, -1n)));
  }
  // An invoice made from dispatch guides frees them when it is no longer live (decisions 14).
  if (!sameState && (states.localState === 'rejected' || states.localState === 'cancelled')) writes.push(...releaseGuides(record, now));
  return { record, writes };
};
