import { localDate } from '../../../shared/calendar.ts';
import { dayClock } from './day-clock.ts';

const MINUTE_MS = 60_000;

/**
 * decisions 17: a preview of today (in the tenant's zone) plans routes that leave the depot no
 * earlier than its `createdAt` plus the tenant's `planningLeadMinutes`, rounded up to the whole
 * minute; a preview of another day has none. Answers the instant as seconds from the service
 * date's midnight (what the problem counts in) and as the date-time the preview shows.
 */
export const earliestStartOf = (
  serviceDate: string,
  createdAt: Date,
  timeZone: string,
  leadMinutes: number,
): { seconds: number; at: string } | null => {
  if (localDate(createdAt, timeZone) !== serviceDate) return null;
  const instant = Math.ceil((createdAt.getTime() + leadMinutes * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const clock = dayClock(serviceDate, timeZone);
  const seconds = clock.secondsAt(instant);
  return { seconds, at: clock.dateTime(seconds) };
};
