import type { BillingProvider, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { activeConnection, type ConnectionRecord } from '../integrations/connection-record.ts';
import { InvalidTransitionError } from './errors.ts';
import { getIntent, type IntentRecord } from './intent-record.ts';
import { ISSUE_DEADLINE_MS, lookUp, providerSession } from './provider-calls.ts';
import { documentStates, moveTo, NOT_SENT } from './state.ts';

/**
 * An issue still inside its own deadline may yet apply: a look-up then would see nothing and
 * send the intent back to approved under a call that is still running. Past this, the issue
 * has answered or died.
 */
export const IN_FLIGHT_MS = ISSUE_DEADLINE_MS + 2_000;

export const RECONCILABLE = new Set(['submitting', 'unknown', 'provider_recorded']);

export interface ReconcileOptions {
  provider?: BillingProvider;
  inFlightMs?: number;
  /** The intent's active connection and its session, when the caller already holds them (the reconciler, per run). */
  connection?: ConnectionRecord;
  session?: ProviderSession;
}

/**
 * decisions 9: look the document up by correlationId (never creating). Found: the intent takes
 * the document's states; not found: back to approved (not_sent), to be issued again under the
 * same salesId. A recorded document with a pending tax state is asked again. An intent whose
 * document the provider has (a recorded one, or the credit note of an accepted return) never
 * goes back: a look that finds nothing only moves its next look later.
 */
export const reconcileIntent = async (intent: IntentRecord, now: Date, options: ReconcileOptions = {}): Promise<{ record: IntentRecord; writes: Write[] }> => {
  if (!RECONCILABLE.has(intent.localState)) throw new InvalidTransitionError('reconciled', intent.localState);
  if (intent.localState === 'provider_recorded' && intent.taxState !== 'pending') return { record: intent, writes: [] };
  const submission = intent.submission!;
  if (intent.localState === 'submitting' && now.getTime() - Date.parse(submission.submittedAt) < (options.inFlightMs ?? IN_FLIGHT_MS)) {
    return { record: intent, writes: [] };
  }
  const connection = options.connection ?? (await activeConnection(intent.tenantId, intent.connectionId));
  const provider = options.provider ?? billingProvider(connection.origin);
  const session = options.session ?? (await providerSession(connection));
  const document = intent.externalDocumentId ? await provider.getDocument(session, intent.externalDocumentId) : await lookUp(provider, session, intent, submission);
  if (document) return moveTo(intent, documentStates(document), now, { externalDocumentId: document.id, documentNumber: document.number });
  const exists = intent.localState === 'provider_recorded' || Boolean(intent.providerReturnId) || Boolean(intent.externalDocumentId);
  if (exists) return moveTo(intent, { localState: intent.localState, providerState: intent.providerState, taxState: intent.taxState }, now);
  return moveTo(intent, NOT_SENT, now);
};

export const reconcileById = async (tenantId: string, intentId: string, now: Date, options: ReconcileOptions = {}) =>
  reconcileIntent(await getIntent(tenantId, intentId), now, options);
