import { nowIso } from '../../shared/clock.ts';
import { StateConflictError, type FieldIssue } from '../../shared/errors.ts';
import type { DocumentReference } from '../../shared/ports/billing-provider/port.ts';
import { tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { GuideAlreadyInvoicedError } from './errors.ts';
import { findIntent, type IntentRecord, type StoredLine } from './intent-record.ts';
import { DEFAULT_TIME_ZONE, getTenant } from '../../shared/tenancy/tenants.ts';
import { checkGuidesMonth, type MonthCheck } from './guides-month.ts';
import { fromMicro, lineTotal, toMicro, travelsExactly } from './money.ts';
import { MAX_DOCUMENT_LINES, type CreateIntentBody } from './schemas.ts';

/**
 * decisions 14 and 16: an invoice made from dispatch guides (`dispatchGuideIds`, 1-40: the
 * SII's 40 references). Its lines are the guides' lines, copied in the order the guides are
 * named (at most 60, the SII's detail lines); the provider's document references each guide
 * (type 52, its folio, its emission date); the guides are of one month, invoiced in time
 * (guides-month.ts); and a guard item per guide (`INVGUIDE#{guideId}`, keys.invoiceGuide) keeps a
 * guide on at most one live invoice.
 */

/** The SII code of a dispatch guide, as a reference names it. */
export const DISPATCH_GUIDE_SII = 52;

/** A guide intent as the guides path stores it: the folio once the provider gave one, its transfer kind (contract 5). */
type GuideRecord = IntentRecord;

/** A guide line: an order line without a price travels at 0 (decisions 14), stored as '0' or null. */
type GuideLine = Omit<StoredLine, 'unitPriceMinor'> & { unitPriceMinor: string | null | undefined };

/**
 * A line the guide carried without a price. The guide path stores a missing price as 0 (what the
 * provider received), so a line at 0 cannot be told from one without a price: both count as unpriced.
 */
const unpriced = (line: GuideLine): boolean => line.unitPriceMinor === null || line.unitPriceMinor === undefined || BigInt(line.unitPriceMinor) === 0n;

const INVOICEABLE = new Set(['issued', 'provider_recorded']);

export interface FromGuides {
  lines: StoredLine[];
  dispatchGuideIds: string[];
  guideReferences: DocumentReference[];
  issues: FieldIssue[];
  /** The guides as read that may still move (provider_recorded): the create's transaction checks they did not. */
  unsettled: Array<{ id: string; version: number }>;
  /** The guides' dates (decisions 16): mixed months or late are their own 422s when nothing else is wrong. */
  month: MonthCheck;
}

// A transaction holds at most 100 items: the intent, a guard and a check per guide (40 each at
// most), the idempotency record and the audit entry make 83.

/** What keeps one named guide from being invoiced, or null when it fits (same tenant, connection, customer, currency). */
const guideIssue = (guide: GuideRecord | undefined, body: CreateIntentBody): string | null => {
  if (!guide || guide.documentKind !== 'dispatch_guide') return 'is not a dispatch guide of this tenant';
  if (guide.connectionId !== body.connectionId) return 'is a guide of another connection';
  // SII shipping types 5 and 6 move goods without a sale (an internal transfer names no customer): only a sale's guide (type 1) is invoiced.
  if (guide.transfer !== undefined && guide.transfer !== 'sale') return `is an ${guide.transfer} guide: goods moved without a sale are not invoiced`;
  if (guide.customerId !== body.customerId) return `is a guide of another customer (${guide.customerId ?? 'none'})`;
  if (guide.currency !== body.currency) return `is a guide in ${guide.currency}`;
  if (!INVOICEABLE.has(guide.localState)) return `is ${guide.localState}: only an issued or provider_recorded guide can be invoiced`;
  if (!guide.documentNumber || !guide.submission) return 'has no folio yet: reconcile the guide first';
  const positions = (guide.lines as GuideLine[]).filter(unpriced).map((line) => line.position);
  if (positions.length > 0) return `has lines without a unit price (positions ${positions.join(', ')}): invoice those goods with lines of their own instead`;
  return null;
};

/** The shape of the request: only an invoice, without lines, naming each guide once. */
const requestIssues = (body: CreateIntentBody, ids: string[]): FieldIssue[] => {
  const issues: FieldIssue[] = [];
  if (body.documentKind !== 'invoice') issues.push({ path: 'body.dispatchGuideIds', message: 'only an invoice is made from dispatch guides' });
  if (body.lines !== undefined) issues.push({ path: 'body.lines', message: 'must be absent when dispatchGuideIds is given: the lines are the guides’' });
  ids.forEach((id, i) => ids.indexOf(id) !== i && issues.push({ path: `body.dispatchGuideIds.${i}`, message: 'names a guide already named' }));
  return issues;
};

/**
 * Reads the named guides (consistently, one GetItem each: the function's grants) and copies
 * their lines, renumbered from 1; every misfit is an issue naming `body.dispatchGuideIds.{i}`.
 */
export const linesFromGuides = async (tenantId: string, body: CreateIntentBody, now: Date): Promise<FromGuides> => {
  const ids = body.dispatchGuideIds ?? [];
  // One 422 names every problem: the request's shape and each guide's are gathered together.
  const issues: FieldIssue[] = requestIssues(body, ids);
  const [guides, tenant] = await Promise.all([Promise.all(ids.map((id) => findIntent(tenantId, id))) as Promise<Array<GuideRecord | undefined>>, getTenant(tenantId)]);
  const lines: StoredLine[] = [];
  const guideReferences: DocumentReference[] = [];
  guides.forEach((guide, i) => {
    const path = `body.dispatchGuideIds.${i}`;
    const problem = guideIssue(guide, body);
    if (problem) return void issues.push({ path, message: problem });
    guideReferences.push({ number: guide!.documentNumber!, referenceDate: guide!.submission!.emissionDate, dteCodeSii: DISPATCH_GUIDE_SII, reason: '' });
    for (const line of [...guide!.lines].sort((a, b) => a.position - b.position)) {
      const quantity = toMicro(line.quantity);
      const total = lineTotal(quantity, BigInt(line.unitPriceMinor));
      if (!travelsExactly.minor(total)) issues.push({ path, message: `line ${line.position}'s total exceeds 9007199254740991, the largest line total the provider answers exactly` });
      lines.push({
        position: lines.length + 1,
        conceptKey: line.conceptKey,
        description: line.description,
        quantity: fromMicro(quantity),
        unitPriceMinor: line.unitPriceMinor,
        lineTotalMinor: total.toString(),
        catalogItemId: line.catalogItemId ?? null,
        creditedPosition: null,
        variantExternalId: line.variantExternalId ?? null,
      });
    }
  });
  if (lines.length > MAX_DOCUMENT_LINES) {
    issues.push({ path: 'body.dispatchGuideIds', message: `the guides have ${lines.length} lines together; an invoice holds at most ${MAX_DOCUMENT_LINES} (the SII's detail lines)` });
  }
  // Only the guides that fit are dated: one that is not a guide has no month to compare.
  const dated = guides.flatMap((guide, index) => (guide?.documentKind === 'dispatch_guide' && guide.submission ? [{ index, emissionDate: guide.submission.emissionDate }] : []));
  const month = checkGuidesMonth(dated, now, tenant?.timeZone ?? DEFAULT_TIME_ZONE);
  // An issued guide is settled for good (never cancelled, credited or moved again); a provider_recorded one may still be rejected.
  const unsettled = guides.filter((guide) => guide?.localState === 'provider_recorded').map((guide) => ({ id: guide!.id, version: guide!.version }));
  return { lines, dispatchGuideIds: ids, guideReferences, issues, unsettled, month };
};

/**
 * One guard per guide, written in the invoice's create transaction: it holds the guide for
 * this invoice unless a live invoice already does. Of two invoices created at once naming one
 * guide, one transaction passes this condition; the other answers 409 guide_already_invoiced.
 * With them, a check that each unsettled guide is still as read.
 */
export const holdGuides = (record: IntentRecord, read: Pick<FromGuides, 'unsettled'> = { unsettled: [] }): Write[] => [
  ...(record.dispatchGuideIds ?? []).map((guideId): Write => ({
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.invoiceGuide(record.tenantId, guideId), entity: 'invoiceGuide', tenantId: record.tenantId, guideId, invoiceId: record.id, heldAt: record.createdAt },
        // A freed guard (its invoice cancelled or rejected) has no invoiceId: the guide may be invoiced again.
        ConditionExpression: 'attribute_not_exists(invoiceId)',
      },
    },
    onConditionFailed: (old) => new GuideAlreadyInvoicedError(guideId, typeof old?.invoiceId === 'string' ? old.invoiceId : null),
  })),
  ...read.unsettled.map((guide) => unchangedGuide(record.tenantId, guide)),
];

/**
 * The guide is still as the create read it (issue 29): a provider_recorded guide the tax
 * authority rejected meanwhile (the reconciler's commit) must not end up on the invoice. If it
 * moved, the request chain runs the create again on a fresh read (`ReadOutdatedError`), which
 * answers 201 (it became issued) or 422 naming the guide (it was rejected).
 */
const unchangedGuide = (tenantId: string, guide: { id: string; version: number }): Write => ({
  item: {
    ConditionCheck: {
      TableName: tableName(),
      Key: keys.invoiceIntent(tenantId, guide.id),
      ConditionExpression: 'version = :version AND localState = :recorded',
      ExpressionAttributeValues: { ':version': guide.version, ':recorded': 'provider_recorded' },
    },
  },
  onConditionFailed: () => new ReadOutdatedError(),
});

/**
 * Frees the invoice's guides in the transaction that makes it cancelled or rejected. An update,
 * not a delete: the reconciler (which settles tax rejections) may put and update items only.
 */
export const releaseGuides = (record: IntentRecord, now: Date): Write[] =>
  (record.dispatchGuideIds ?? []).map((guideId) => ({
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.invoiceGuide(record.tenantId, guideId),
        UpdateExpression: 'REMOVE invoiceId SET releasedAt = :at, releasedBy = :invoice',
        ConditionExpression: 'invoiceId = :invoice',
        ExpressionAttributeValues: { ':at': nowIso(now), ':invoice': record.id },
      },
    },
    onConditionFailed: () => new StateConflictError(`The dispatch guide ${guideId} is not held by this invoice.`, 'invalid_state'),
  }));
