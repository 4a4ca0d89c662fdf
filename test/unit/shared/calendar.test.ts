import { describe, expect, it } from 'vitest';
import { daysBetween, localDate } from '../../../shared/calendar.ts';

/** What Intl itself says, one call per instant: the reference the cached offsets must match. */
const references = new Map<string, Intl.DateTimeFormat>();
const intlDate = (ms: number, timeZone: string) => {
  if (!references.has(timeZone)) references.set(timeZone, new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }));
  return references.get(timeZone)!.format(new Date(ms));
};

describe('local dates', () => {
  it('match Intl at every instant around the daylight-saving changes of several zones', () => {
    // Santiago (changes at local midnight), Lord Howe (half-hour change), Chatham (+12:45), Sydney, and a zone without changes.
    const zones = ['America/Santiago', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Australia/Sydney', 'America/Bogota'];
    // The 2026 changes: Santiago April 5 and September 6, Chatham September 27, Lord Howe and Sydney October 4 (and all April 5).
    const windows = ['2026-04-03', '2026-09-04', '2026-09-25', '2026-10-02'];
    for (const timeZone of zones) {
      for (const start of windows) {
        const from = Date.parse(`${start}T00:00:00Z`);
        for (let ms = from; ms < from + 4 * 86_400_000; ms += 11 * 60_000) {
          const [ours, intl] = [localDate(new Date(ms), timeZone), intlDate(ms, timeZone)];
          if (ours !== intl) expect(ours, `${timeZone} ${new Date(ms).toISOString()}`).toBe(intl);
        }
      }
    }
  });

  it('counts calendar days, not 24-hour periods', () => {
    expect(daysBetween('2026-04-04', '2026-04-06')).toBe(2);
    expect(daysBetween('2026-09-06', '2026-09-05')).toBe(-1);
  });
});

describe('local dates far from now', () => {
  it('keep the year of an early date-time (a client may send year 0050)', () => {
    expect(localDate(new Date('0050-06-15T12:00:00Z'), 'America/Santiago')).toBe('0050-06-15');
  });
});
