import { earliestStart } from './model.ts';
import type { Solution } from './solution.ts';

/**
 * The one O(1) time check of the optimizer: can customer c go between positions i and i + 1 of
 * route r? Its earliest start there (Savelsbergh's forward pass, `start`), then the arrival at the
 * next stop against the latest arrival that keeps the rest feasible (the backward pass,
 * `lateArr`); exact with several windows per order (docs/routing.md). Returns c's arrival there,
 * or NaN when it does not fit (the duration pricing needs the arrival to pick c's window).
 */
export function arrivalIfFits(s: Solution, c: number, r: number, i: number): number {
  const m = s.m;
  const size = m.size;
  const j = s.off[r] + i;
  const p = s.nodes[j];
  const q = s.nodes[j + 1];
  const arrival = s.start[j] + m.service[p] + m.time[p * size + c];
  const st = earliestStart(m, c, arrival);
  return st + m.service[c] + m.time[c * size + q] <= s.lateArr[j + 1] ? arrival : NaN;
}

/** Whether route r can take c at all, whatever the position: skills, stops, load. */
export function routeCanTake(s: Solution, c: number, r: number): boolean {
  const m = s.m;
  return (
    m.compat[c * m.vehicles + r] !== 0 &&
    s.len[r] < m.vMaxStops[r] &&
    s.sum0[r] + m.load0[c] <= m.vCap0[r] &&
    s.sum1[r] + m.load1[c] <= m.vCap1[r]
  );
}

/** arrivalIfFits as a yes or no. */
export const fitsAt = (s: Solution, c: number, r: number, i: number): boolean => !Number.isNaN(arrivalIfFits(s, c, r, i));
