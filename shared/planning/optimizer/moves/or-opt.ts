import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { copyRun, type Move, rewrite, runsFit } from './move.ts';

/**
 * Or-opt within a route (Or 1976; PyVRP's Exchange<N, 0> when both nodes share a route): u and
 * the k - 1 stops after it moved, in the same order, to just after position j of their own route.
 * The inter-route moves never re-sequence a route, and the recreate re-sequences only the
 * customers a ruin took out.
 */
export const orOpt = (k: 1 | 2 | 3): Move => ({
  name: `or-opt ${k}`,
  evaluate(s: Solution, u: number, rv: number, j: number, _p: Penalties): number {
    const m = s.m;
    const r = s.routeOf[u];
    if (r !== rv) return Infinity;
    const i = s.posOf[u];
    const end = i + k - 1;
    if (end > s.len[r] || (j >= i - 1 && j <= end)) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const o = s.off[r];
    const last = s.nodes[o + end];
    const a = s.nodes[o + i - 1];
    const b = s.nodes[o + end + 1];
    const v = s.nodes[o + j];
    const q = s.nodes[o + j + 1];
    const delta = arc[a * size + b] - arc[a * size + u] - arc[last * size + b] + arc[v * size + u] + arc[last * size + q] - arc[v * size + q];
    if (delta >= -1e-9) return delta;
    // Moved earlier: from j + 1, the segment then what it jumped; moved later: from i, what it jumped then the segment.
    const fits = j < i ? runsFit(s, r, j + 1, i, end, j + 1, i - 1) : runsFit(s, r, i, end + 1, j, i, end);
    return fits ? delta : Infinity;
  },
  apply(s: Solution, u: number, _rv: number, j: number, w: Work): void {
    const r = s.routeOf[u];
    const i = s.posOf[u];
    const end = i + k - 1;
    const a = w.scratchA;
    // The runs `evaluate` checked: moved earlier, the segment then what it jumped; moved later, the reverse.
    let n: number;
    if (j < i) {
      n = copyRun(s, r, 1, j, a, 0);
      n = copyRun(s, r, i, end, a, n);
      n = copyRun(s, r, j + 1, i - 1, a, n);
      n = copyRun(s, r, end + 1, s.len[r], a, n);
    } else {
      n = copyRun(s, r, 1, i - 1, a, 0);
      n = copyRun(s, r, end + 1, j, a, n);
      n = copyRun(s, r, i, end, a, n);
      n = copyRun(s, r, j + 1, s.len[r], a, n);
    }
    rewrite(s, r, a, n);
    w.touch(r);
  },
});
