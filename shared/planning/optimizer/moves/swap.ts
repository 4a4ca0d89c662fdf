import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { loadFits, type Move, reaches, rewriteBoth, startAfter } from './move.ts';

/** Swap (PyVRP's Exchange<1, 1>): u and the customer at position j of another route rv trade places. */
export const swap: Move = {
  name: 'swap',
  evaluate(s: Solution, u: number, rv: number, j: number, _p: Penalties): number {
    const m = s.m;
    const ru = s.routeOf[u];
    if (ru === rv || j < 1) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const ou = s.off[ru];
    const ov = s.off[rv];
    const i = s.posOf[u];
    const v = s.nodes[ov + j];
    const pu = s.nodes[ou + i - 1];
    const nu = s.nodes[ou + i + 1];
    const pv = s.nodes[ov + j - 1];
    const nv = s.nodes[ov + j + 1];
    const delta =
      arc[pu * size + v] + arc[v * size + nu] - arc[pu * size + u] - arc[u * size + nu] + arc[pv * size + u] + arc[u * size + nv] - arc[pv * size + v] - arc[v * size + nv];
    if (delta >= -1e-9) return delta;
    if (!loadFits(s, v, ru, m.load0[u], m.load1[u]) || !loadFits(s, u, rv, m.load0[v], m.load1[v])) return Infinity;
    if (!reaches(s, startAfter(m, s.start[ou + i - 1], pu, v), v, ru, i + 1)) return Infinity;
    return reaches(s, startAfter(m, s.start[ov + j - 1], pv, u), u, rv, j + 1) ? delta : Infinity;
  },
  apply(s: Solution, u: number, rv: number, j: number, w: Work): void {
    const ru = s.routeOf[u];
    const i = s.posOf[u];
    const v = s.nodes[s.off[rv] + j];
    const a = w.scratchA;
    const b = w.scratchB;
    for (let x = 1; x <= s.len[ru]; x++) a[x - 1] = s.nodes[s.off[ru] + x];
    for (let x = 1; x <= s.len[rv]; x++) b[x - 1] = s.nodes[s.off[rv] + x];
    a[i - 1] = v;
    b[j - 1] = u;
    rewriteBoth(s, w, ru, s.len[ru], rv, s.len[rv]);
  },
};
