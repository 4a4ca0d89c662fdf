import { config } from '../../shared/config.ts';
import { ProviderRefusedError, ProviderUnavailableError } from '../../shared/ports/billing-provider/errors.ts';
import type { BillingProvider, ProviderDocument, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { sessionOf, type ConnectionRecord } from '../integrations/connection-record.ts';
import type { IssueSettings } from '../integrations/schemas.ts';
import type { IntentRecord, Submission } from './intent-record.ts';
import { quantityToWire, toMicro, toWireNumber } from './money.ts';

/**
 * The connection's provider session, naming whose it is: the sandbox keeps each connection's
 * documents under that tenant and connection.
 */
export const providerSession = async (connection: ConnectionRecord): Promise<ProviderSession> => ({
  ...(await sessionOf(connection)),
  owner: { tenantId: connection.tenantId, connectionId: connection.id },
});

/** decisions 9: issue waits at most 8 s for the provider, then answers the intent as unknown (config.providerDeadlineMs). */
export const issueDeadlineMs = (): number => config.providerDeadlineMs;

/**
 * Races provider calls against the deadline: past it, the answer is "unknown" (what was sent may
 * still apply). The deadline also aborts the calls' signal before anyone learns of it, so nothing
 * waiting its turn (the connection's spacing, a 429's wait) is sent after the intent left
 * `submitting`, and a request in flight is cut.
 */
export const withDeadline = async <T>(call: (signal: AbortSignal) => Promise<T>, deadlineMs: number): Promise<T> => {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ProviderUnavailableError('timeout'));
    }, deadlineMs);
  });
  const running = call(controller.signal);
  running.catch(() => undefined); // a call that fails after the deadline is not an unhandled rejection
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
    // Settled either way: whatever of it still waits must not leave now.
    controller.abort();
  }
};

/** One POST of the document (provider-chile.md "Issuing a document"), salesId = correlationId. */
const issueDocument = async (provider: BillingProvider, session: ProviderSession, intent: IntentRecord, submission: Submission, settings: IssueSettings, signal?: AbortSignal): Promise<ProviderDocument> => {
  const { value } = await provider.issueDocument(session, {
    documentTypeId: submission.documentTypeId,
    officeId: submission.officeId,
    emissionDate: submission.emissionDate,
    salesId: intent.correlationId,
    clientId: intent.customerExternalId,
    // The guides an invoice covers already took the stock out: the invoice must not take it again.
    dispatch: settings.dispatchStock && !intent.guideReferences?.length && intent.lines.some((line) => line.variantExternalId !== null),
    details: documentDetails(intent, settings),
    ...(intent.guideReferences?.length ? { references: intent.guideReferences } : {}),
  }, { signal });
  return value;
};

/** The document's details: a variant or a comment per line; a guide line without a price was stored at 0 (netUnitValue 0). */
const documentDetails = (intent: IntentRecord, settings: IssueSettings) =>
  intent.lines.map((line) => ({
    ...(line.variantExternalId ? { variantId: line.variantExternalId } : { comment: line.description }),
    quantity: quantityToWire(toMicro(line.quantity)),
    netUnitValue: toWireNumber(line.unitPriceMinor),
    taxId: settings.vatTaxId,
  }));

/** The provider's shipping type for why the goods move (issue settings `shippingTypeIds`); fixed on the intent by its first send. */
export const shippingTypeOf = (intent: IntentRecord, settings: IssueSettings): string => {
  if (intent.shippingLookup?.shippingTypeId) return intent.shippingLookup.shippingTypeId;
  const types = settings.shippingTypeIds;
  if (!types) throw new ProviderRefusedError(400, 'the connection has no shipping types');
  if (intent.transfer === 'internal_transfer') return types.internalTransfer;
  if (intent.transfer === 'other_transfer') return types.otherTransfer;
  return types.sale;
};

/**
 * A dispatch guide (provider-chile.md "Dispatch guides"): one shipping, whose `guide` is the guide
 * document, then that document for its folio and tax state. The intent's externalDocumentId is
 * the guide document's id, not the shipping's. Once the POST answered, the shipping exists:
 * `progress` says so, and nothing that fails after it may send the guide again.
 */
const issueGuide = async (
  provider: BillingProvider,
  session: ProviderSession,
  intent: IntentRecord,
  submission: Submission,
  settings: IssueSettings,
  progress: SendProgress,
  signal?: AbortSignal,
): Promise<ProviderDocument> => {
  const shipping = intent.shipping;
  const { value } = await provider.createShipping(session, {
    documentTypeId: submission.documentTypeId,
    officeId: submission.officeId,
    emissionDate: submission.emissionDate,
    shippingTypeId: shippingTypeOf(intent, settings),
    salesId: intent.correlationId,
    // An internal transfer names its receiving office and no client (decisions 16).
    clientId: intent.destinationOfficeId ? null : intent.customerExternalId,
    ...(intent.destinationOfficeId ? { destinationOfficeId: intent.destinationOfficeId } : {}),
    address: shipping?.address ?? '',
    municipality: shipping?.municipality ?? '',
    city: shipping?.city ?? '',
    recipient: shipping?.recipient ?? '',
    details: documentDetails(intent, settings),
  }, { signal });
  progress.shippingId = value.id;
  progress.guideId = value.guideId;
  // A shipping without its guide yet: unknown, and the look-up finds the guide later.
  if (!value.guideId) throw new ProviderUnavailableError('bad_answer');
  const document = await provider.getDocument(session, value.guideId, { signal });
  if (!document) throw new ProviderUnavailableError('bad_answer');
  return document;
};

/**
 * A credit note through the provider's returns: the credited document's lines by position, then
 * the credit note document the return names (its folio and tax state).
 */
const issueReturn = async (
  provider: BillingProvider,
  session: ProviderSession,
  intent: IntentRecord,
  credited: IntentRecord,
  submission: Submission,
  progress: SendProgress,
  signal?: AbortSignal,
): Promise<ProviderDocument> => {
  if (!credited.externalDocumentId) throw new ProviderRefusedError(400, 'the credited invoice has no provider document');
  const details = await provider.getDocumentDetails(session, credited.externalDocumentId, { signal });
  const byPosition = new Map(details.map((detail, index) => [detail.lineNumber ?? index + 1, detail.id]));
  const { value } = await provider.createReturn(session, {
    documentTypeId: submission.documentTypeId,
    officeId: submission.officeId,
    referenceDocumentId: credited.externalDocumentId,
    emissionDate: submission.emissionDate,
    motive: intent.lines.map((line) => line.description).join('; ').slice(0, 250),
    salesId: intent.correlationId,
    clientId: credited.customerExternalId,
    details: intent.lines.map((line) => {
      const detailId = byPosition.get(line.creditedPosition ?? 0);
      if (!detailId) throw new ProviderRefusedError(400, `the credited document has no line ${line.creditedPosition}`);
      return { documentDetailId: detailId, quantity: quantityToWire(toMicro(line.quantity)) };
    }),
  }, { signal });
  progress.returnId = value.id;
  progress.creditNoteId = value.creditNoteId;
  const documentId = value.creditNoteId;
  if (!documentId) throw new ProviderUnavailableError('bad_answer');
  const document = await provider.getDocument(session, documentId, { signal });
  if (!document) throw new ProviderUnavailableError('bad_answer');
  return document;
};

/** What the provider already accepted when a later step fails (filled as the calls go, so a deadline sees it too). */
export interface SendProgress {
  returnId?: string;
  creditNoteId?: string | null;
  /** A guide's shipping, once the provider answered its POST, and the guide document it named. */
  shippingId?: string;
  guideId?: string | null;
}

export const sendOnce = (
  provider: BillingProvider,
  session: ProviderSession,
  intent: IntentRecord,
  submission: Submission,
  settings: IssueSettings,
  credited: IntentRecord | undefined,
  progress: SendProgress = {},
  signal?: AbortSignal,
): Promise<ProviderDocument> => {
  if (intent.documentKind === 'credit_note') return issueReturn(provider, session, intent, credited!, submission, progress, signal);
  if (intent.documentKind === 'dispatch_guide') return issueGuide(provider, session, intent, submission, settings, progress, signal);
  return issueDocument(provider, session, intent, submission, settings, signal);
};

const DAY = 86_400;

/** A lookup that never creates: the document this intent's salesId made, if the provider holds one (documents and returns, not guides). */
export const lookUp = async (provider: BillingProvider, session: ProviderSession, intent: IntentRecord, submission: Submission, signal?: AbortSignal): Promise<ProviderDocument | undefined> => {
  const found = await provider.findDocumentsBySalesId(session, {
    salesId: intent.correlationId,
    documentTypeId: submission.documentTypeId,
    emissionDateFrom: submission.emissionDate - DAY,
    emissionDateTo: submission.emissionDate + DAY,
  }, { signal });
  return found[0];
};
