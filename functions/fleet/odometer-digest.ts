import { addDaysTo, daysBetween, localDate } from '../../shared/calendar.ts';
import { ODOMETER_MIN_READINGS, ODOMETER_WINDOW_DAYS, type OdometerView } from './care-schemas.ts';

/**
 * What the care item keeps of a vehicle's readings: the newest one, and per local day of the
 * last 90 days the earliest reading and how many there were. That is all the 90-day average and
 * the count need, and it stays under ~2 KB however often drivers report, so the care list reads
 * a bounded amount per vehicle. Every reading itself is kept too, in the vehicle's reading
 * partition, for the order check.
 */
export interface OdometerDigest {
  lastKm: number;
  lastReadAt: string;
  /** [epoch seconds of the day's earliest reading, its km, readings that day], oldest first. */
  days: [number, number, number][];
}

const dayOf = (epochSeconds: number, timeZone: string): string => localDate(new Date(epochSeconds * 1000), timeZone);

/** The first day of the window that ends today: a reading counts while it is at most 90 days old. */
const windowStart = (today: string): string => addDaysTo(today, -ODOMETER_WINDOW_DAYS);

/** Adds a reading (already checked for order) to the digest, dropping days that left the window. */
export const addReading = (digest: OdometerDigest | undefined, reading: { km: number; readAt: string }, today: string, timeZone: string): OdometerDigest => {
  const at = Math.floor(Date.parse(reading.readAt) / 1000);
  const from = windowStart(today);
  const days = (digest?.days ?? []).filter(([first]) => dayOf(first, timeZone) >= from).map((d) => [...d] as [number, number, number]);
  const day = dayOf(at, timeZone);
  if (day >= from) {
    const same = days.find(([first]) => dayOf(first, timeZone) === day);
    // Readings never go backwards, so the day's earliest reading is also its lowest.
    if (same) [same[0], same[1], same[2]] = at < same[0] ? [at, reading.km, same[2] + 1] : [same[0], same[1], same[2] + 1];
    else days.push([at, reading.km, 1]);
    days.sort((a, b) => a[0] - b[0]);
  }
  const last = digest && Date.parse(digest.lastReadAt) > Date.parse(reading.readAt) ? digest : reading;
  return { lastKm: 'km' in last ? last.km : last.lastKm, lastReadAt: 'km' in last ? last.readAt : last.lastReadAt, days };
};

/**
 * The odometer view on a given day: dailyKm is the km between the oldest and the newest reading
 * of the last 90 days over the calendar days between them (rounded to 0.1 km, the value the
 * projections use), null with fewer than 2 readings or when they all fall on one day.
 */
export const odometerView = (digest: OdometerDigest | undefined, today: string, timeZone: string): OdometerView | null => {
  if (!digest) return null;
  const from = windowStart(today);
  const inWindow = digest.days.filter(([first]) => dayOf(first, timeZone) >= from);
  const readings = inWindow.reduce((sum, [, , count]) => sum + count, 0);
  let dailyKm: number | null = null;
  if (readings >= ODOMETER_MIN_READINGS) {
    const [first, firstKm] = inWindow[0];
    const days = daysBetween(dayOf(first, timeZone), localDate(new Date(digest.lastReadAt), timeZone));
    if (days > 0) dailyKm = Math.round(((digest.lastKm - firstKm) / days) * 10) / 10;
  }
  return { lastKm: digest.lastKm, lastReadAt: digest.lastReadAt, dailyKm, readings };
};
