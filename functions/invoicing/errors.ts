import { StateConflictError, UnprocessableError, type FieldIssue } from '../../shared/errors.ts';

/** The invoicing errors of decisions 9, each with its stable code (docs/error-codes.md). */
export class ConnectionNotReadyError extends UnprocessableError {
  constructor(reason: string) {
    super(`The connection cannot issue documents: ${reason}.`, 'connection_not_ready', [{ path: 'body.connectionId', message: reason }]);
  }
}

export class InvalidInvoiceError extends UnprocessableError {
  constructor(message: string, issues: FieldIssue[]) {
    super(message, 'invalid_invoice', issues);
  }
}

export class TotalMismatchError extends UnprocessableError {
  constructor(expected: bigint, sent: string) {
    super(`The lines sum to ${expected}, but totalMinor is ${sent}.`, 'total_mismatch', [{ path: 'body.totalMinor', message: `must be ${expected}, the sum of lineTotalMinor` }]);
  }
}

export class CreditExceedsRemainingError extends UnprocessableError {
  constructor(issues: FieldIssue[]) {
    super('A credited quantity exceeds what remains of the credited line.', 'credit_exceeds_remaining', issues);
  }
}

/** An operation the intent's current state does not allow (decisions 9). */
export class InvalidTransitionError extends StateConflictError {
  constructor(operation: string, state: string) {
    super(`An intent that is ${state} cannot be ${operation}.`, 'invalid_state');
    this.extensions.localState = state;
  }
}

/** decisions 14: the guide is on another live (not cancelled, not rejected) invoice. */
export class GuideAlreadyInvoicedError extends StateConflictError {
  constructor(guideId: string, invoiceIntentId: string | null) {
    super(`The dispatch guide ${guideId} is on another live invoice${invoiceIntentId ? ` (${invoiceIntentId})` : ''}.`, 'guide_already_invoiced');
    this.extensions.dispatchGuideId = guideId;
    if (invoiceIntentId) this.extensions.invoiceIntentId = invoiceIntentId;
  }
}

/** decisions 16: an invoice covers the dispatch guides of one calendar month (art. 55 DL 825). */
export class GuidesMixedMonthsError extends UnprocessableError {
  constructor(issues: FieldIssue[]) {
    super('The dispatch guides are of more than one calendar month: invoice each month’s guides apart.', 'guides_mixed_months', issues);
  }
}

/** decisions 16: guides of an earlier month are invoiced by the 10th of the next (art. 55 DL 825, SII Circular 103/1979). */
export class GuidesInvoiceLateError extends UnprocessableError {
  constructor(issues: FieldIssue[]) {
    super('The dispatch guides are of an earlier month whose invoicing ended on the 10th of the next month.', 'guides_invoice_late', issues);
  }
}

/**
 * decisions 19: "no guide exists" is not accepted while the provider may still apply the latest
 * send (its answer window) unless a finished look-up could not tell its shippings apart.
 */
export class AnswerWindowOpenError extends StateConflictError {
  constructor(windowEndsAt: string) {
    super(`The provider may still apply this guide's latest send until ${windowEndsAt}: settle it as none only after that, or once its look-up ends ambiguous.`, 'answer_window_open');
    this.extensions.answerWindowEndsAt = windowEndsAt;
  }
}
