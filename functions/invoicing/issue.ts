import { nowIso } from '../../shared/clock.ts';
import { ProviderRefusedError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../shared/ports/billing-provider/errors.ts';
import type { BillingProvider } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { DEFAULT_TIME_ZONE, getTenant } from '../../shared/tenancy/tenants.ts';
import { auditWrite } from '../../shared/audit/entry.ts';
import { activeConnection } from '../integrations/connection-record.ts';
import type { IssueSettings } from '../integrations/schemas.ts';
import { ConnectionNotReadyError, GuidesInvoiceLateError, InvalidTransitionError } from './errors.ts';
import { checkGuidesMonth } from './guides-month.ts';
import { guideMoveWrite } from './guides/guard.ts';
import { getIntent, saveIntent, type IntentRecord, type Submission } from './intent-record.ts';
import { issueDeadlineMs, providerSession, sendOnce, shippingTypeOf, withDeadline, type SendProgress } from './provider-calls.ts';
import { documentStates, moveTo, NOT_SENT, REFUSED, RECONCILE_AFTER_SECONDS, UNKNOWN } from './state.ts';
import { addSeconds } from '../../shared/clock.ts';

/** The provider's emissionDate: the tenant's today (America/Santiago by default) as Unix seconds at 00:00 UTC. */
export const tenantDay = (now: Date, timeZone: string): number => {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  return Date.parse(`${day}T00:00:00Z`) / 1000;
};

/** The provider document type an intent is issued as; a guide needs the connection's guide settings. */
const submissionType = (intent: IntentRecord, settings: IssueSettings): string => {
  if (intent.documentKind === 'credit_note') return settings.documentTypeIds.creditNote;
  if (intent.documentKind !== 'dispatch_guide') return settings.documentTypeIds[intent.documentKind];
  const type = settings.documentTypeIds.dispatchGuide ?? null;
  if (!type || !settings.shippingTypeIds) throw new ConnectionNotReadyError('the connection has no dispatch guide settings');
  return type;
};

/**
 * An invoice of guides is dated in the guides' month whenever it is first sent (decisions 16): an
 * intent made in the guides' month but issued after it is dated that month's last day, and one
 * first sent after the 10th of the next month is refused before anything is committed.
 */
const emissionDateOf = async (intent: IntentRecord, now: Date): Promise<number> => {
  const timeZone = (await getTenant(intent.tenantId))?.timeZone ?? DEFAULT_TIME_ZONE;
  const guidesDay = intent.guideReferences?.[0]?.referenceDate;
  if (guidesDay === undefined) return intent.emissionDay ?? tenantDay(now, timeZone);
  const month = checkGuidesMonth([{ index: 0, emissionDate: guidesDay }], now, timeZone);
  if (month.kind === 'late') throw new GuidesInvoiceLateError(month.issues);
  return month.kind === 'ok' && month.emissionDay !== undefined ? month.emissionDay : tenantDay(now, timeZone);
};

export interface IssueOptions {
  provider?: BillingProvider;
  deadlineMs?: number;
}

/** Who issues: the member and request the audit entry of the `submitting` commit names. */
export interface IssueActor {
  actorId: string;
  requestId: string;
  /** The audit action; a job names its own (decisions 12). Default issueInvoiceIntent. */
  action?: string;
}

export const ISSUE_AUDIT_ACTION = 'issueInvoiceIntent';

/**
 * decisions 9: commit `submitting` first (so a crash after the call leaves a trace the
 * reconciler follows), send once with correlationId as salesId, and answer as the intent then
 * stands. The returned writes are the second commit; a caller that dies before them leaves the
 * intent `submitting`, which reconcile settles by looking the document up.
 */
export const issueIntent = async (tenantId: string, intentId: string, now: Date, actor: IssueActor, options: IssueOptions = {}): Promise<{ record: IntentRecord; writes: Write[] }> => {
  const intent = await getIntent(tenantId, intentId);
  if (intent.localState !== 'approved') throw new InvalidTransitionError('issued', intent.localState);
  const connection = await activeConnection(tenantId, intent.connectionId);
  const settings = connection.issueSettings;
  if (!settings) throw new ConnectionNotReadyError('the connection has no issue settings');
  const credited = intent.creditedInvoiceId ? await getIntent(tenantId, intent.creditedInvoiceId) : undefined;
  const provider = options.provider ?? billingProvider(connection.origin);
  const session = await providerSession(connection);

  const at = nowIso(now);
  // Fixed by the first attempt: a retry after "not found" sends the same type and date again.
  const submission: Submission = intent.submission
    ? { ...intent.submission, submittedAt: at, sendEndedAt: null }
    : {
        documentTypeId: submissionType(intent, settings),
        officeId: settings.officeId,
        emissionDate: await emissionDateOf(intent, now),
        firstSubmittedAt: at,
        submittedAt: at,
      };
  const submitting: IntentRecord = {
    ...intent,
    localState: 'submitting',
    providerState: 'unknown',
    taxState: 'not_submitted',
    submission,
    version: intent.version + 1,
    updatedAt: at,
    reconcileDueAt: nowIso(addSeconds(now, RECONCILE_AFTER_SECONDS)),
    reconcileAttempts: 0,
    // A guide's shipping type is fixed by its first send (the look-up filters by it); each send starts a fresh look-up.
    ...(intent.documentKind === 'dispatch_guide' ? { shippingLookup: { shippingTypeId: shippingTypeOf(intent, settings), progress: null, ambiguous: null } } : {}),
  };
  // Only one caller gets past this write: the others find the intent no longer approved (409).
  // It carries the member's audit entry: a function that dies after the provider call still names who issued.
  await commit([
    saveIntent(submitting, { version: intent.version, localState: 'approved' }),
    ...guideMoveWrite(submitting),
    auditWrite({ tenantId, actorId: actor.actorId, action: actor.action ?? ISSUE_AUDIT_ACTION, resourceId: intent.id, requestId: actor.requestId, now }),
  ]);

  const progress: SendProgress = {};
  const sendStarted = Date.now();
  // When the send ended (its answer, or its deadline), on `now`'s clock: a guide's answer window counts from it (decisions 19).
  const ended = () => ({ submission: { ...submission, sendEndedAt: nowIso(new Date(now.getTime() + (Date.now() - sendStarted))) } });
  try {
    const document = await withDeadline((signal) => sendOnce(provider, session, submitting, submission, settings, credited, progress, signal), options.deadlineMs ?? issueDeadlineMs());
    return moveTo(submitting, documentStates(document), now, { externalDocumentId: document.id, documentNumber: document.number, ...ended() });
  } catch (error) {
    // The provider accepted the return: its credit note exists or will, so nothing but that document settles it.
    if (progress.returnId) return moveTo(submitting, UNKNOWN, now, { providerReturnId: progress.returnId, externalDocumentId: progress.creditNoteId ?? null, ...ended() });
    // The shipping exists: whatever failed after its POST (a 4xx, 401 or 5xx on reading its guide) is never "refused" or "not sent" (decisions 16).
    if (progress.shippingId) return moveTo(submitting, UNKNOWN, now, { externalDocumentId: progress.guideId ?? null, ...ended() });
    if (error instanceof ProviderUnavailableError) return moveTo(submitting, UNKNOWN, now, ended());
    // A 401 is answered before anything is applied: nothing exists to find, it can be sent again.
    if (error instanceof ProviderTokenRejectedError) return moveTo(submitting, NOT_SENT, now, ended());
    if (error instanceof ProviderRefusedError) return moveTo(submitting, REFUSED, now, ended());
    return moveTo(submitting, UNKNOWN, now, ended());
  }
};
