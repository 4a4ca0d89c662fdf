import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';

/**
 * Fleet minimisation's ruin (SISR, section 6): takes a whole route out, the one whose customers
 * were left out least often so far (their summed absences; the first such route on a tie), so
 * the customers that are easy to place are the ones to find room elsewhere. Returns the route, or
 * -1 when no route is in use.
 */
export function removeRoute(s: Solution, w: Work, absences: Int32Array): number {
  const m = s.m;
  let chosen = -1;
  let least = Infinity;
  for (let r = 0; r < m.vehicles; r++) {
    const len = s.len[r];
    if (len === 0) continue;
    const o = s.off[r];
    let sum = 0;
    for (let i = 1; i <= len; i++) sum += absences[s.nodes[o + i]];
    if (sum < least) {
      least = sum;
      chosen = r;
    }
  }
  if (chosen < 0) return -1;
  const o = s.off[chosen];
  for (let i = 1; i <= s.len[chosen]; i++) {
    const c = s.nodes[o + i];
    w.drop[c] = 1;
    w.removed[w.removedCount++] = c;
  }
  s.compact(chosen, w.drop);
  s.refresh(chosen);
  for (let i = 0; i < w.removedCount; i++) w.drop[w.removed[i]] = 0;
  w.touch(chosen);
  return chosen;
}
