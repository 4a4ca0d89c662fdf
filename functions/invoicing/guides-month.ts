import type { FieldIssue } from '../../shared/errors.ts';
import { localDate } from '../../shared/calendar.ts';

/**
 * decisions 16 (art. 55 DL 825, SII Circular 103/1979): an invoice covers the dispatch guides of
 * one calendar month. Guides of an earlier month are invoiced by the 10th of the next month and
 * the invoice is dated the last day of the guides' month; guides of the current month are dated
 * on the day the invoice is issued. A guide's month is its emission date at the provider (its
 * submission's emissionDate: the tenant's day at 00:00 UTC, so its UTC date is that day).
 */

/** The last day of the next month on which an earlier month's guides may still be invoiced. */
export const LAST_INVOICE_DAY = 10;

export interface GuideDate {
  /** The index of the guide in `dispatchGuideIds`. */
  index: number;
  /** Its emissionDate at the provider (Unix seconds of its day at 00:00 UTC). */
  emissionDate: number;
}

export type MonthCheck =
  | { kind: 'ok'; emissionDay?: number }
  | { kind: 'mixed'; issues: FieldIssue[] }
  | { kind: 'late'; issues: FieldIssue[] };

const monthOf = (emissionDate: number): string => new Date(emissionDate * 1000).toISOString().slice(0, 7);

const nextMonth = (month: string): string => {
  const [year, m] = month.split('-').map(Number);
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
};

/** Unix seconds at 00:00 UTC of the last day of a month (the provider's emissionDate form). */
const lastDayOf = (month: string): number => {
  const [year, m] = month.split('-').map(Number);
  return Date.UTC(year, m, 0) / 1000;
};

/**
 * Checks the guides' dates against the tenant's today. `ok` carries the emission day to issue
 * the invoice with when the guides are of an earlier month (absent: the issue day, as for any
 * invoice).
 */
export const checkGuidesMonth = (guides: GuideDate[], now: Date, timeZone: string): MonthCheck => {
  if (guides.length === 0) return { kind: 'ok' };
  const month = monthOf(guides[0].emissionDate);
  const mixed = guides.filter((guide) => monthOf(guide.emissionDate) !== month);
  if (mixed.length > 0) {
    return {
      kind: 'mixed',
      issues: mixed.map((guide) => ({
        path: `body.dispatchGuideIds.${guide.index}`,
        message: `is a guide of ${monthOf(guide.emissionDate)}, the first guide one of ${month}: an invoice covers the guides of one calendar month`,
      })),
    };
  }
  const today = localDate(now, timeZone);
  if (month >= today.slice(0, 7)) return { kind: 'ok' };
  const due = `${nextMonth(month)}-${String(LAST_INVOICE_DAY).padStart(2, '0')}`;
  if (today > due) {
    return {
      kind: 'late',
      issues: [{ path: 'body.dispatchGuideIds', message: `the guides are of ${month}: their invoice was due by ${due} (art. 55 DL 825); it is ${today} in ${timeZone}` }],
    };
  }
  return { kind: 'ok', emissionDay: lastDayOf(month) };
};
