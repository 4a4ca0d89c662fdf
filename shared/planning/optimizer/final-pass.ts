import { insertCheapest } from './operators/recreate-blinks.ts';
import type { Rng } from './rng.ts';
import type { Solution } from './solution.ts';
import type { Work } from './work.ts';

/**
 * The last insertion pass (decisions 18): every order still left out, in index order, tried at
 * every position of every route and of one empty vehicle of each kind, no blinks, no randomness.
 * An order it cannot place had no room in the final routes, so `no_room` is claimed only where it
 * is true. One pass suffices: placing an order only takes room away from the others.
 */
export function finalInsertionPass(s: Solution, rng: Rng, w: Work): number {
  w.blinkRate = 0;
  w.routeCap = s.m.vehicles;
  w.begin();
  const left = Array.from(s.unassigned.subarray(0, s.unCount)).sort((a, b) => a - b);
  let placed = 0;
  for (const c of left) if (insertCheapest(s, rng, w, c)) placed++;
  return placed;
}
