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

/** decisions 9: issue waits at most 8 s for the provider, then answers the intent as unknown. */
export const ISSUE_DEADLINE_MS = 8_000;

/** Races a provider call against the deadline: past it, the answer is "unknown" (it may still apply). */
export const withDeadline = async <T>(call: Promise<T>, deadlineMs: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderUnavailableError('timeout')), deadlineMs);
  });
  call.catch(() => undefined); // a call that fails after the deadline is not an unhandled rejection
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
};

/** One POST of the document (provider-chile.md "Issuing a document"), salesId = correlationId. */
const issueDocument = async (provider: BillingProvider, session: ProviderSession, intent: IntentRecord, submission: Submission, settings: IssueSettings): Promise<ProviderDocument> => {
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
  });
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

/** The provider's shipping type for why the goods move (issue settings `shippingTypeIds`). */
const shippingTypeOf = (intent: IntentRecord, settings: IssueSettings): string => {
  const types = settings.shippingTypeIds;
  if (!types) throw new ProviderRefusedError(400, 'the connection has no shipping types');
  if (intent.transfer === 'internal_transfer') return types.internalTransfer;
  if (intent.transfer === 'other_transfer') return types.otherTransfer;
  return types.sale;
};

/**
 * A dispatch guide (provider-chile.md "Dispatch guides"): one shipping per salesId, whose `guide`
 * is the guide document, then that document for its folio and tax state. The intent's
 * externalDocumentId is the guide document's id, not the shipping's.
 */
const issueGuide = async (provider: BillingProvider, session: ProviderSession, intent: IntentRecord, submission: Submission, settings: IssueSettings): Promise<ProviderDocument> => {
  const shipping = intent.shipping;
  const { value } = await provider.createShipping(session, {
    documentTypeId: submission.documentTypeId,
    officeId: submission.officeId,
    emissionDate: submission.emissionDate,
    shippingTypeId: shippingTypeOf(intent, settings),
    salesId: intent.correlationId,
    clientId: intent.customerExternalId,
    address: shipping?.address ?? '',
    municipality: shipping?.municipality ?? '',
    city: shipping?.city ?? '',
    recipient: shipping?.recipient ?? '',
    details: documentDetails(intent, settings),
  });
  // A shipping without its guide yet: unknown, and the lookup by salesId finds the guide later.
  if (!value.guideId) throw new ProviderUnavailableError('bad_answer');
  const document = await provider.getDocument(session, value.guideId);
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
): Promise<ProviderDocument> => {
  if (!credited.externalDocumentId) throw new ProviderRefusedError(400, 'the credited invoice has no provider document');
  const details = await provider.getDocumentDetails(session, credited.externalDocumentId);
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
  });
  progress.returnId = value.id;
  progress.creditNoteId = value.creditNoteId;
  const documentId = value.creditNoteId;
  if (!documentId) throw new ProviderUnavailableError('bad_answer');
  const document = await provider.getDocument(session, documentId);
  if (!document) throw new ProviderUnavailableError('bad_answer');
  return document;
};

/** What the provider already accepted when a later step fails (filled as the calls go, so a deadline sees it too). */
export interface SendProgress {
  returnId?: string;
  creditNoteId?: string | null;
}

export const sendOnce = (
  provider: BillingProvider,
  session: ProviderSession,
  intent: IntentRecord,
  submission: Submission,
  settings: IssueSettings,
  credited: IntentRecord | undefined,
  progress: SendProgress = {},
): Promise<ProviderDocument> => {
  if (intent.documentKind === 'credit_note') return issueReturn(provider, session, intent, credited!, submission, progress);
  if (intent.documentKind === 'dispatch_guide') return issueGuide(provider, session, intent, submission, settings);
  return issueDocument(provider, session, intent, submission, settings);
};

const DAY = 86_400;

/** A lookup that never creates: the document this intent's salesId made, if the provider holds one. */
export const lookUp = async (provider: BillingProvider, session: ProviderSession, intent: IntentRecord, submission: Submission): Promise<ProviderDocument | undefined> => {
  const found = await provider.findDocumentsBySalesId(session, {
    salesId: intent.correlationId,
    documentTypeId: submission.documentTypeId,
    emissionDateFrom: submission.emissionDate - DAY,
    emissionDateTo: submission.emissionDate + DAY,
  });
  return found[0];
};
