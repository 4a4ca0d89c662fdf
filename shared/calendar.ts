/**
 * Local calendar dates. A local date is carried as a Date at UTC midnight (or its YYYY-MM-DD
 * text), so that adding and counting days never trips over daylight-saving changes: the zone is
 * consulted once, through Intl, when an instant becomes a date, and never as a fixed offset.
 */

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatter = (timeZone: string): Intl.DateTimeFormat => {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, fmt);
  }
  return fmt;
};

/** The zone's offset from UTC at an instant, in ms, as Intl knows it (never a fixed offset). */
export const offsetAt = (ms: number, timeZone: string): number => {
  const p = Object.fromEntries(formatter(timeZone).formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes them as they are.
  const local = new Date(Date.UTC(2000, p.month - 1, p.day, p.hour, p.minute, p.second)).setUTCFullYear(p.year);
  return local - Math.floor(ms / 1000) * 1000;
};

/**
 * Intl is slow (tens of µs a call), and the care list turns thousands of instants into dates.
 * A zone's offset changes at most once in a UTC day, so the offsets at the day's two ends tell
 * whether it changes within it: when they agree the day needs no further call; when they
 * differ (a daylight-saving day) each instant asks Intl itself.
 */
const dayOffsets = new Map<string, [number, number]>();

const offsetOf = (ms: number, timeZone: string): number => {
  const day = Math.floor(ms / DAY_MS);
  const key = `${timeZone}|${day}`;
  let ends = dayOffsets.get(key);
  if (!ends) {
    if (dayOffsets.size > 10_000) dayOffsets.clear();
    ends = [offsetAt(day * DAY_MS, timeZone), offsetAt((day + 1) * DAY_MS, timeZone)];
    dayOffsets.set(key, ends);
  }
  return ends[0] === ends[1] ? ends[0] : offsetAt(ms, timeZone);
};

/** The date an instant has in a zone. Throws RangeError for an unknown zone: a bad tenant setting should surface. */
export function localToday(now: Date, timeZone: string): Date {
  const local = now.getTime() + offsetOf(now.getTime(), timeZone);
  return new Date(Math.floor(local / DAY_MS) * DAY_MS);
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

/** YYYY-MM-DD of an instant in a zone. */
export const localDate = (at: Date, timeZone: string): string => isoDate(localToday(at, timeZone));

const midnight = (day: string): number => Date.parse(`${day}T00:00:00Z`);

export const addDaysTo = (day: string, days: number): string => isoDate(new Date(midnight(day) + days * DAY_MS));

/** Whole calendar days from one date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number => Math.round((midnight(to) - midnight(from)) / DAY_MS);

