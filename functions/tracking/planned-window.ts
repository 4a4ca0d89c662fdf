import { dayClock } from '../routing/previews/day-clock.ts';

const HOUR_MS = 60 * 60_000;
const MIN_MS = 30 * 60_000;

export interface PlannedWindow {
  from: string;
  to: string;
}

/**
 * The window a recipient is shown before the route starts (decisions 17, amending 15): the two
 * hours around the stop's planned start of service (its planned arrival, or the opening of the
 * order's window it waits for), shifted and then cut to lie inside that window of the order, so
 * it never opens before the order's window opens nor closes after it closes; at least 30 minutes
 * unless the order's window is shorter (then that whole window). An order without windows, or
 * planned after its last one closes, keeps the two hours around the arrival.
 */
export const plannedWindowOf = (plannedArrivalAt: string, timeWindows: readonly { from: string; to: string }[], serviceDate: string, timeZone: string): PlannedWindow => {
  const arrival = Date.parse(plannedArrivalAt);
  const clock = dayClock(serviceDate, timeZone);
  const midnight = Date.parse(clock.dateTime(0));
  const windows = timeWindows.map((w) => [midnight + clock.seconds(w.from) * 1000, midnight + clock.seconds(w.to) * 1000] as const);
  const servedIn = windows.find(([, close]) => arrival <= close);
  const iso = (from: number, to: number): PlannedWindow => ({ from: new Date(from).toISOString(), to: new Date(to).toISOString() });
  if (!servedIn) return iso(arrival - HOUR_MS, arrival + HOUR_MS);
  const [open, close] = servedIn;
  const start = Math.max(arrival, open);
  let from = start - HOUR_MS;
  let to = start + HOUR_MS;
  // Shifted inside (the opening first, so a window shorter than two hours starts at its opening), then cut.
  if (from < open) [from, to] = [open, open + 2 * HOUR_MS];
  if (to > close) [from, to] = [close - 2 * HOUR_MS, close];
  [from, to] = [Math.max(from, open), Math.min(to, close)];
  if (to - from < MIN_MS) [from, to] = close - open <= MIN_MS ? [open, close] : [Math.max(open, Math.min(from, close - MIN_MS)), Math.min(close, Math.max(to, from + MIN_MS))];
  return iso(from, to);
};
