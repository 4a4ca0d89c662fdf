import { randomUUID } from 'node:crypto';
import { insertIntent, type IntentRecord, type StoredLine } from '../../../functions/invoicing/intent-record.ts';
import { localDate } from '../../../shared/calendar.ts';
import { newId } from '../../../shared/ids.ts';
import { commit } from '../../../shared/table/transaction.ts';

/**
 * Today in Santiago at 00:00 UTC: the seeded guides' emission date. A fixed date would turn late
 * (decisions 16: guides are invoiced by the 10th of the next month) as the calendar moves on.
 */
export const GUIDE_DAY = Date.parse(`${localDate(new Date(), 'America/Santiago')}T00:00:00Z`) / 1000;

let folio = 7000;

export type SeedLine = Omit<StoredLine, 'position' | 'lineTotalMinor' | 'creditedPosition' | 'unitPriceMinor'> & { unitPriceMinor: string | null };

export const guideLine = (conceptKey: string, quantity: string, unitPriceMinor: string | null, over: Partial<SeedLine> = {}): SeedLine => ({
  conceptKey,
  description: `${conceptKey} (guía)`,
  quantity,
  unitPriceMinor,
  catalogItemId: null,
  variantExternalId: null,
  ...over,
});

/**
 * A guide intent as the route's guide path leaves it once issued (contract 5: documentKind
 * dispatch_guide, the folio in documentNumber, the emission date in submission), written
 * directly: the guides path is another helper's, and this one needs only its result.
 */
export const seedGuide = async (
  tenantId: string,
  connectionId: string,
  customerId: string | null,
  lines: SeedLine[],
  over: Partial<IntentRecord> & { documentNumber?: string | null; transfer?: string } = {},
): Promise<IntentRecord & { documentNumber: string | null }> => {
  const at = new Date().toISOString();
  const stored = lines.map((line, i) => ({
    ...line,
    position: i + 1,
    creditedPosition: null,
    lineTotalMinor: line.unitPriceMinor === null ? null : String(Math.round(Number(line.quantity) * Number(line.unitPriceMinor))),
  }));
  const record = {
    id: newId(),
    tenantId,
    connectionId,
    documentKind: 'dispatch_guide',
    customerId,
    creditedInvoiceId: null,
    correlationId: randomUUID(),
    currency: 'CLP',
    minorUnitScale: 0,
    totalMinor: '0',
    localState: 'issued',
    providerState: 'accepted',
    taxState: 'authorized',
    externalDocumentId: String(90000 + folio),
    providerVersion: null,
    version: 4,
    createdAt: at,
    updatedAt: at,
    lines: stored as unknown as StoredLine[],
    customerExternalId: '501',
    submission: { documentTypeId: '52', officeId: '2', emissionDate: GUIDE_DAY, firstSubmittedAt: at, submittedAt: at },
    reconcileDueAt: null,
    reconcileAttempts: 0,
    documentNumber: String(++folio),
    transfer: 'sale',
    ...over,
  } as IntentRecord & { documentNumber: string | null };
  await commit([insertIntent(record)]);
  return record;
};
