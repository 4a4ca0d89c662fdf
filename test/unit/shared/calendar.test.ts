import { describe, expect, it } from 'vitest';
import { daysBetween, isCalendarDate, localDate } from '../../../shared/calendar.ts';

/** What Intl itself says, one call per instant: the reference the cached offsets must match. */
const intlDate = (ms: number, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

describe('local dates', () => {
  it('match Intl at every instant around the daylight-saving changes of several zones', () => {
    // Santiago (changes at local midnight), Lord Howe (half-hour change), Chatham (+12:45), Sydney, and a zone without changes.
    const zones = ['America/Santiago', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Australia/Sydney', 'America/Bogota'];
    const windows = ['2026-04-02', '2026-09-03', '2026-10-01', '2027-04-01'];
    for (const timeZone of zones) {
      for (const start of windows) {
        const from = Date.parse(`${start}T00:00:00Z`);
        for (let ms = from; ms < from + 5 * 86_400_000; ms += 7 * 60_000) expect(localDate(new Date(ms), timeZone), `${timeZone} ${new Date(ms).toISOString()}`).toBe(intlDate(ms, timeZone));
      }
    }
  });

  it('counts calendar days, not 24-hour periods, and knows real dates', () => {
    expect(daysBetween('2026-04-04', '2026-04-06')).toBe(2);
    expect(daysBetween('2026-09-06', '2026-09-05')).toBe(-1);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
  });
});
