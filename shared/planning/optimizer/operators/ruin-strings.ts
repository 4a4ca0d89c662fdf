import type { Rng } from '../rng.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import type { Ruin } from './operator.ts';

/** SISR's parameters (Christiaens & Vanden Berghe 2020, table 4). */
export const AVG_REMOVED = 10;
const MAX_STRING = 10;
const SPLIT_RATE = 0.5;
const SPLIT_DEPTH = 0.01;

/**
 * Adjacent string removal: from a random seed customer, walk its nearest neighbours and cut one
 * string (consecutive customers, or a split string that keeps a middle part) out of each route
 * met, until `ks` routes are cut. Removed customers join the unassigned list; cut routes are
 * refreshed and recorded in `work.touched`.
 */
export const ruinStrings: Ruin = { name: 'adjacent string removal', apply: ruin };

function ruin(s: Solution, rng: Rng, w: Work): void {
  const m = s.m;
  const assigned = m.n - s.unCount;
  if (assigned === 0) return;
  const used = s.used();
  const lsMax = Math.min(MAX_STRING, assigned / used);
  const ksMax = (4 * AVG_REMOVED) / (1 + lsMax) - 1;
  const ks = Math.floor(rng.next() * ksMax) + 1;
  const seed = 1 + rng.int(m.n);
  const stamp = ++w.stamp;
  let cut = 0;
  for (let j = -1; j < m.nbCount && cut < ks; j++) {
    const c = j < 0 ? seed : m.neighbours[seed * m.nbCount + j];
    const r = s.routeOf[c];
    if (r < 0 || w.routeStamp[r] === stamp) continue;
    w.routeStamp[r] = stamp;
    w.touch(r);
    cut++;
    const len = s.len[r];
    const l = Math.floor(rng.next() * Math.min(len, lsMax)) + 1;
    const pos = s.posOf[c];
    const o = s.off[r];
    if (l === len || rng.next() >= SPLIT_RATE) {
      const first = Math.max(1, pos - l + 1) + rng.int(Math.min(pos, len - l + 1) - Math.max(1, pos - l + 1) + 1);
      for (let i = first; i < first + l; i++) markRemoved(w, s.nodes[o + i]);
    } else {
      let kept = 1;
      while (l + kept < len && rng.next() >= SPLIT_DEPTH) kept++;
      const span = l + kept;
      const lo = Math.max(1, pos - span + 1);
      const first = lo + rng.int(Math.min(pos, len - span + 1) - lo + 1);
      const keepAt = first + rng.int(l + 1);
      for (let i = first; i < first + span; i++) {
        if (i >= keepAt && i < keepAt + kept) continue;
        markRemoved(w, s.nodes[o + i]);
      }
    }
    s.compact(r, w.drop);
    s.refresh(r);
  }
  for (let i = 0; i < w.removedCount; i++) w.drop[w.removed[i]] = 0;
}

function markRemoved(w: Work, c: number): void {
  w.drop[c] = 1;
  w.removed[w.removedCount++] = c;
}
