import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { copyRun, loadFits, type Move, reaches, rewriteBoth, startAfter } from './move.ts';

/**
 * Relocate (PyVRP's Exchange<N, 0>): u, or u and the stop after it (`k` = 2), moved out of u's
 * route to just after position j of another route rv, in the same order.
 */
export const relocate = (k: 1 | 2): Move => ({
  name: `relocate ${k}`,
  evaluate(s: Solution, u: number, rv: number, j: number, p: Penalties): number {
    const m = s.m;
    const ru = s.routeOf[u];
    if (ru === rv) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const ou = s.off[ru];
    const i = s.posOf[u];
    const lenU = s.len[ru];
    if (i + k - 1 > lenU) return Infinity;
    const last = s.nodes[ou + i + k - 1];
    const a = s.nodes[ou + i - 1];
    const b = s.nodes[ou + i + k];
    const ov = s.off[rv];
    const v = s.nodes[ov + j];
    const q = s.nodes[ov + j + 1];
    let delta = arc[a * size + b] - arc[a * size + u] - arc[last * size + b] + arc[v * size + u] + arc[last * size + q] - arc[v * size + q];
    if (lenU === k) delta -= p.route;
    if (delta >= -1e-9) return delta;
    if (s.len[rv] + k > m.vMaxStops[rv]) return Infinity;
    if (!loadFits(s, u, rv, 0, 0)) return Infinity;
    if (k === 2 && !loadFits(s, last, rv, -m.load0[u], -m.load1[u])) return Infinity;
    // Taking stops out of a route keeps it feasible on a matrix with the triangle inequality; a road matrix may lack it.
    if (!reaches(s, s.start[ou + i - 1], a, ru, i + k)) return Infinity;
    let t = startAfter(m, s.start[ov + j], v, u);
    if (k === 2) t = startAfter(m, t, u, last);
    return reaches(s, t, last, rv, j + 1) ? delta : Infinity;
  },
  apply(s: Solution, u: number, rv: number, j: number, w: Work): void {
    const ru = s.routeOf[u];
    const i = s.posOf[u];
    const a = w.scratchA;
    const b = w.scratchB;
    const na = copyRun(s, ru, i + k, s.len[ru], a, copyRun(s, ru, 1, i - 1, a, 0));
    let nb = copyRun(s, rv, 1, j, b, 0);
    nb = copyRun(s, ru, i, i + k - 1, b, nb);
    nb = copyRun(s, rv, j + 1, s.len[rv], b, nb);
    rewriteBoth(s, w, ru, na, rv, nb);
  },
});
