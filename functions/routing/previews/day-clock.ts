import { offsetAt } from '../../../shared/calendar.ts';

/**
 * A preview's clock (decisions 15): times are seconds from midnight of the service date in the
 * tenant's time zone, counted in real seconds from that instant, so travel and service add up
 * across a daylight-saving change; each is shown as a date-time with the zone's offset then.
 */
/**
 * The instant a wall-clock time of a date has in the zone. A time the clocks skip (a spring
 * forward) reads as the same distance past the jump; a repeated one as its first occurrence.
 */
const wallInstant = (serviceDate: string, secondsOfDay: number, timeZone: string): number => {
  const [y, m, d] = serviceDate.split('-').map(Number);
  const wall = Date.UTC(y, m - 1, d) + secondsOfDay * 1000;
  // The zone's offsets a day either side: a day holds at most one change.
  const before = offsetAt(wall - 86_400_000, timeZone);
  const after = offsetAt(wall + 86_400_000, timeZone);
  const valid = [wall - before, wall - after].filter((instant, i) => offsetAt(instant, timeZone) === (i === 0 ? before : after));
  return valid.length > 0 ? Math.min(...valid) : wall - before;
};

export interface DayClock {
  /** `HH:MM` of the service date → seconds from its midnight. */
  seconds(clock: string): number;
  /** Seconds from midnight → `2026-11-23T09:30:00-03:00`. */
  dateTime(seconds: number): string;
  /** An instant (epoch ms) → seconds from the service date's midnight (negative before it). */
  secondsAt(instant: number): number;
}

export const dayClock = (serviceDate: string, timeZone: string): DayClock => {
  const midnight = wallInstant(serviceDate, 0, timeZone);
  return {
    seconds: (clock) => {
      const [h, min] = clock.split(':').map(Number);
      return Math.round((wallInstant(serviceDate, h * 3600 + min * 60, timeZone) - midnight) / 1000);
    },
    secondsAt: (instant) => Math.floor((instant - midnight) / 1000),
    dateTime: (seconds) => {
      const instant = midnight + seconds * 1000;
      const offset = offsetAt(instant, timeZone);
      const minutes = Math.round(Math.abs(offset) / 60_000);
      const sign = offset < 0 ? '-' : '+';
      const local = new Date(instant + offset).toISOString().slice(0, 19);
      return `${local}${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    },
  };
};
