import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { type Move, rewrite, runsFit } from './move.ts';

/**
 * 2-opt within a route (Croes 1958): the stretch between u and v reversed so that u and v become
 * adjacent, v right after u when v lies later in the route (positions i + 1 .. j reversed), right
 * before it when earlier (positions j .. i - 1 reversed). The one intra-route move that undoes a
 * route crossing itself, which moving one to three stops cannot. On a matrix that is not symmetric
 * the reversed stretch's own arcs change too, and are summed.
 */
export const twoOpt: Move = {
  name: '2-opt',
  evaluate(s: Solution, u: number, rv: number, j: number, _p: Penalties): number {
    const m = s.m;
    const r = s.routeOf[u];
    if (r !== rv || j < 1) return Infinity;
    const i = s.posOf[u];
    const lo = j > i ? i + 1 : j;
    const hi = j > i ? j : i - 1;
    if (hi - lo < 1) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const o = s.off[r];
    const before = s.nodes[o + lo - 1];
    const first = s.nodes[o + lo];
    const last = s.nodes[o + hi];
    const after = s.nodes[o + hi + 1];
    let delta = arc[before * size + last] + arc[first * size + after] - arc[before * size + first] - arc[last * size + after];
    if (!m.symmetric) {
      for (let x = lo; x < hi; x++) {
        const c = s.nodes[o + x];
        const d = s.nodes[o + x + 1];
        delta += arc[d * size + c] - arc[c * size + d];
      }
      s.meter.work += hi - lo;
    }
    if (delta >= -1e-9) return delta;
    return runsFit(s, r, lo, hi, lo) ? delta : Infinity;
  },
  apply(s: Solution, u: number, _rv: number, j: number, w: Work): void {
    const r = s.routeOf[u];
    const i = s.posOf[u];
    const o = s.off[r];
    const lo = j > i ? i + 1 : j;
    const hi = j > i ? j : i - 1;
    const a = w.scratchA;
    const len = s.len[r];
    for (let x = 1; x <= len; x++) a[x - 1] = x >= lo && x <= hi ? s.nodes[o + lo + hi - x] : s.nodes[o + x];
    rewrite(s, r, a, len);
    w.touch(r);
  },
};
