/**
 * Local calendar dates. A local date is carried as a Date at UTC midnight (or its YYYY-MM-DD
 * text), so that adding and counting days never trips over daylight-saving changes: the zone is
 * consulted once, through Intl, when an instant becomes a date, and never as a fixed offset.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The date an instant has in a zone. Throws RangeError for an unknown zone: a bad tenant setting should surface. */
export function localToday(now: Date, timeZone: string): Date {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, fmt);
  }
  const parts = Object.fromEntries(fmt.formatToParts(now).map((p) => [p.type, p.value]));
  return new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)));
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** YYYY-MM-DD of an instant in a zone. */
export const localDate = (at: Date, timeZone: string): string => isoDate(localToday(at, timeZone));

const DAY_MS = 86_400_000;
const midnight = (day: string): number => Date.parse(`${day}T00:00:00Z`);

export const addDaysTo = (day: string, days: number): string => isoDate(new Date(midnight(day) + days * DAY_MS));

/** Whole calendar days from one date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((midnight(to) - midnight(from)) / DAY_MS);

/** A real calendar date: 2026-02-30 has the right shape but no day. */
export const isCalendarDate = (day: string): boolean => /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(midnight(day)) && isoDate(new Date(midnight(day))) === day;
