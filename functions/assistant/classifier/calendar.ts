/**
 * Calendar arithmetic on local dates. A local date is carried as a Date at UTC
 * midnight so that adding days never trips over daylight-saving changes.
 */

export { addDays, isoDate, localToday } from '../../../shared/calendar.ts';

/** Null for impossible dates such as 31/11 instead of rolling over. */
export function makeDate(year: number, month: number, day: number): Date | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day ? d : null;
}

/**
 * A day and month without a year: questions are about what already happened,
 * so a date later than today means the same day of the previous year.
 */
export function latestPastDayMonth(today: Date, month: number, day: number): Date | null {
  // Several years back only matters for 29 February.
  for (let year = today.getUTCFullYear(); year >= today.getUTCFullYear() - 8; year--) {
    const d = makeDate(year, month, day);
    if (d && d <= today) return d;
    if (!d && makeDate(2024, month, day) === null) return null;
  }
  return null;
}

/** "el 15": that day of this month, or of the latest past month that has it. */
export function latestPastDayOfMonth(today: Date, day: number): Date | null {
  let year = today.getUTCFullYear();
  let month = today.getUTCMonth() + 1;
  for (let i = 0; i < 13; i++) {
    const d = makeDate(year, month, day);
    if (d && d <= today) return d;
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
  }
  return null;
}

/** Two-digit years are read as 20xx; nobody asks the assistant about 1926. */
export function fullYear(y: number): number {
  return y < 100 ? 2000 + y : y;
}
