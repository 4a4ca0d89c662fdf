import { randomUUID } from 'node:crypto';
import { nowIso } from '../../shared/clock.ts';
import { ValidationError, type FieldIssue } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { findConnectionRecord, type ConnectionRecord } from '../integrations/connection-record.ts';
import { adjustLedger, creditedMicro, readLedger, saveLedger } from './credits.ts';
import { ConnectionNotReadyError, CreditExceedsRemainingError, GuidesInvoiceLateError, GuidesMixedMonthsError, InvalidInvoiceError, TotalMismatchError } from './errors.ts';
import { holdGuides, linesFromGuides } from './from-guides.ts';
import { findIntent, insertIntent, type IntentRecord, type StoredLine } from './intent-record.ts';
import { CURRENCY_SCALES, fromMicro, lineTotal, sum, toMicro, travelsExactly } from './money.ts';
import { recordExternalId } from './records.ts';
import { MAX_DOCUMENT_LINES, MAX_LINES, type CreateIntentBody } from './schemas.ts';

/** provider-chile-v1 issues pesos only; the sandbox stands in for it and follows the same rule. */
const PROVIDER_CURRENCIES: Record<ConnectionRecord['origin'], readonly string[]> = { 'provider-chile-v1': ['CLP'], 'sandbox-v1': ['CLP'] };

const readyConnection = async (tenantId: string, connectionId: string): Promise<ConnectionRecord> => {
  const connection = await findConnectionRecord(tenantId, connectionId);
  if (!connection) throw new ConnectionNotReadyError('no connection of this tenant has this id');
  if (connection.state !== 'active') throw new ConnectionNotReadyError('the connection is revoked');
  if (!connection.issueSettings) throw new ConnectionNotReadyError('the connection has no issue settings');
  return connection;
};

const currencyIssues = (connection: ConnectionRecord, body: CreateIntentBody): FieldIssue[] => {
  const scale = CURRENCY_SCALES[body.currency];
  if (scale === undefined) return [{ path: 'body.currency', message: 'is not a supported ISO 4217 currency' }];
  const issues: FieldIssue[] = [];
  if (scale !== body.minorUnitScale) issues.push({ path: 'body.minorUnitScale', message: `must be ${scale}, the ISO 4217 scale of ${body.currency}` });
  const allowed = PROVIDER_CURRENCIES[connection.origin];
  if (!allowed.includes(body.currency)) issues.push({ path: 'body.currency', message: `${connection.origin} issues ${allowed.join(', ')} only` });
  return issues;
};

/** The lines as stored, each catalogue item resolved to its variant's provider id. */
const buildLines = async (tenantId: string, connectionId: string, body: CreateIntentBody): Promise<{ lines: StoredLine[]; issues: FieldIssue[] }> => {
  if (body.lines === undefined) throw new ValidationError([{ path: 'body.lines', message: 'is required unless dispatchGuideIds is given' }]);
  const issues: FieldIssue[] = [];
  // decisions 16: the SII's 60 detail lines for an invoice or a credit note; a receipt keeps 200.
  if (body.documentKind !== 'receipt' && body.lines.length > MAX_DOCUMENT_LINES) {
    issues.push({ path: 'body.lines', message: `has ${body.lines.length} lines; ${body.documentKind === 'invoice' ? 'an invoice' : 'a credit note'} holds at most ${MAX_DOCUMENT_LINES} (a receipt ${MAX_LINES})` });
  }
  const lines = await Promise.all(
    body.lines.map(async (input, index): Promise<StoredLine> => {
      const catalogItemId = input.catalogItemId ?? null;
      const variantExternalId = catalogItemId ? await recordExternalId(tenantId, connectionId, 'variants', catalogItemId) : null;
      if (catalogItemId && !variantExternalId) issues.push({ path: `body.lines.${index}.catalogItemId`, message: 'is not a variant record of this connection' });
      const quantity = toMicro(input.quantity);
      const total = lineTotal(quantity, BigInt(input.unitPriceMinor));
      // The provider takes JSON numbers only: a value it would receive rounded is refused here, before anything is stored.
      const path = `body.lines.${index}`;
      if (!travelsExactly.quantity(quantity)) issues.push({ path: `${path}.quantity`, message: 'has more significant digits than the provider can receive exactly as a JSON number' });
      if (!travelsExactly.minor(BigInt(input.unitPriceMinor))) issues.push({ path: `${path}.unitPriceMinor`, message: 'exceeds 9007199254740991, the largest amount the provider receives exactly' });
      else if (!travelsExactly.minor(total)) issues.push({ path: `${path}.quantity`, message: 'times unitPriceMinor exceeds 9007199254740991, the largest line total the provider answers exactly' });
      return {
        position: index + 1,
        conceptKey: input.conceptKey,
        description: input.description,
        quantity: fromMicro(quantity),
        unitPriceMinor: input.unitPriceMinor,
        lineTotalMinor: total.toString(),
        catalogItemId,
        creditedPosition: input.creditedPosition ?? null,
        variantExternalId: variantExternalId ?? null,
      };
    }),
  );
  return { lines, issues };
};

/**
 * A credit note names an issued (or provider-recorded) receipt or invoice of the same connection
 * and currency; every line names a credited position, and the quantities of all live credit
 * notes of a position stay within the credited line's (decisions 9).
 */
const creditWrites = async (tenantId: string, body: CreateIntentBody, lines: StoredLine[]): Promise<Write[]> => {
  if (body.documentKind !== 'credit_note') {
    const issues: FieldIssue[] = [];
    if (body.creditedInvoiceId !== undefined) issues.push({ path: 'body.creditedInvoiceId', message: 'only a credit note names a credited invoice' });
    lines.forEach((line, i) => line.creditedPosition !== null && issues.push({ path: `body.lines.${i}.creditedPosition`, message: 'only a credit note line names a credited position' }));
    if (issues.length > 0) throw new InvalidInvoiceError('Only credit notes credit anything.', issues);
    return [];
  }
  if (!body.creditedInvoiceId) throw new InvalidInvoiceError('A credit note names the invoice it credits.', [{ path: 'body.creditedInvoiceId', message: 'is required for a credit note' }]);
  const credited = await findIntent(tenantId, body.creditedInvoiceId);
  const fit =
    credited &&
    credited.documentKind !== 'credit_note' &&
    credited.documentKind !== 'dispatch_guide' && // a guide moves goods, it charges nothing: it is invoiced, never credited
    (credited.localState === 'issued' || credited.localState === 'provider_recorded') &&
    credited.connectionId === body.connectionId &&
    credited.currency === body.currency;
  if (!credited || !fit) {
    throw new InvalidInvoiceError('The credited invoice must be an issued receipt or invoice of the same connection and currency.', [
      { path: 'body.creditedInvoiceId', message: 'is not an issued receipt or invoice of this connection and currency' },
    ]);
  }
  const ledger = await readLedger(tenantId, credited.id);
  const issues: FieldIssue[] = [];
  // A credit note gives back what was invoiced: the same customer, each line at the credited line's price.
  if (body.customerId !== credited.customerId) issues.push({ path: 'body.customerId', message: `must be ${credited.customerId ?? 'null'}, the credited document's customer` });
  const asked = new Map<number, bigint>();
  lines.forEach((line, i) => {
    const target = credited.lines.find((l) => l.position === line.creditedPosition);
    if (!target) return void issues.push({ path: `body.lines.${i}.creditedPosition`, message: 'must name a position of the credited invoice' });
    if (line.unitPriceMinor !== target.unitPriceMinor) {
      return void issues.push({ path: `body.lines.${i}.unitPriceMinor`, message: `must be ${target.unitPriceMinor}, the unit price of position ${target.position}` });
    }
    asked.set(target.position, (asked.get(target.position) ?? 0n) + toMicro(line.quantity));
    const remaining = toMicro(target.quantity) - creditedMicro(ledger, target.position);
    if (asked.get(target.position)! > remaining) {
      issues.push({ path: `body.lines.${i}.quantity`, message: `exceeds what remains of position ${target.position} (${fromMicro(remaining < 0n ? 0n : remaining)})` });
    }
  });
  if (issues.some((issue) => !issue.path.endsWith('.quantity'))) throw new InvalidInvoiceError('Every credit note line credits a position of the credited document, at its price, for its customer.', issues);
  if (issues.length > 0) throw new CreditExceedsRemainingError(issues);
  return [saveLedger(adjustLedger(ledger, lines, 1n))];
};

export const createIntent = async (tenantId: string, body: CreateIntentBody, now: Date): Promise<{ record: IntentRecord; writes: Write[] }> => {
  const connection = await readyConnection(tenantId, body.connectionId);
  const issues = currencyIssues(connection, body);
  if (body.documentKind === 'invoice' && body.customerId === null) issues.push({ path: 'body.customerId', message: 'an invoice needs a customer' });
  const customerExternalId = body.customerId ? await recordExternalId(tenantId, connection.id, 'parties', body.customerId) : null;
  if (body.customerId && !customerExternalId) issues.push({ path: 'body.customerId', message: 'is not a party record of this connection' });
  // decisions 14: an invoice made from dispatch guides takes the guides' lines (from-guides.ts).
  const guides = body.dispatchGuideIds !== undefined ? await linesFromGuides(tenantId, body, now) : undefined;
  const built = guides ?? (await buildLines(tenantId, connection.id, body));
  issues.push(...built.issues);
  // One 422 names every problem: the guides' dates have codes of their own only when nothing else is wrong.
  const month = guides?.month ?? { kind: 'ok' as const };
  if (issues.length > 0) throw new InvalidInvoiceError('The invoice intent does not fit its connection and records.', month.kind === 'ok' ? issues : [...issues, ...month.issues]);
  if (month.kind === 'mixed') throw new GuidesMixedMonthsError(month.issues);
  if (month.kind === 'late') throw new GuidesInvoiceLateError(month.issues);
  const total = sum(built.lines.map((line) => BigInt(line.lineTotalMinor)));
  if (total !== BigInt(body.totalMinor)) throw new TotalMismatchError(total, body.totalMinor);
  if (!travelsExactly.minor(total)) {
    throw new InvalidInvoiceError('The total is larger than the provider can answer exactly.', [{ path: 'body.totalMinor', message: 'exceeds 9007199254740991, the largest total the provider answers exactly' }]);
  }
  const ledgerWrites = await creditWrites(tenantId, body, built.lines);
  const at = nowIso(now);
  const record: IntentRecord = {
    id: newId(),
    tenantId,
    connectionId: connection.id,
    documentKind: body.documentKind,
    customerId: body.customerId,
    creditedInvoiceId: body.creditedInvoiceId ?? null,
    correlationId: randomUUID(),
    currency: body.currency,
    minorUnitScale: body.minorUnitScale,
    totalMinor: total.toString(),
    localState: 'draft',
    providerState: 'not_sent',
    taxState: 'not_submitted',
    externalDocumentId: null,
    providerVersion: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    lines: built.lines,
    customerExternalId: customerExternalId ?? null,
    submission: null,
    providerReturnId: null,
    reconcileDueAt: null,
    reconcileAttempts: 0,
    ...(guides ? { dispatchGuideIds: guides.dispatchGuideIds, guideReferences: guides.guideReferences } : {}),
    // Guides of an earlier month: the invoice is dated the last day of their month (issue.ts sends it).
    ...(month.kind === 'ok' && month.emissionDay !== undefined ? { emissionDay: month.emissionDay } : {}),
  };
  return { record, writes: [insertIntent(record), ...ledgerWrites, ...holdGuides(record, guides)] };
};
