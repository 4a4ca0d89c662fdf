import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { copyRun, type Move, reaches, rewriteBoth } from './move.ts';

/**
 * 2-opt* (PyVRP's SwapTails): u's route keeps its stops up to u and goes on with route rv's stops
 * after position j; rv keeps its stops up to j and goes on with u's tail. Only between vehicles
 * of one class (model.ts): alike in shift, capacity, stop limit and skills, each route's latest
 * arrivals hold for the other's vehicle, so the check stays O(1).
 */
export const swapTails: Move = {
  name: '2-opt*',
  evaluate(s: Solution, u: number, rv: number, j: number, p: Penalties): number {
    const m = s.m;
    const ru = s.routeOf[u];
    if (ru === rv || m.vClass[ru] !== m.vClass[rv]) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const ou = s.off[ru];
    const ov = s.off[rv];
    const i = s.posOf[u];
    const lenU = s.len[ru];
    const lenV = s.len[rv];
    if (i === lenU && j === lenV) return Infinity;
    const v = s.nodes[ov + j];
    const nu = s.nodes[ou + i + 1];
    const nv = s.nodes[ov + j + 1];
    let delta = arc[u * size + nv] + arc[v * size + nu] - arc[u * size + nu] - arc[v * size + nv];
    // rv left with nothing: its route is saved.
    if (j === 0 && i === lenU) delta -= p.route;
    if (delta >= -1e-9) return delta;
    if (i + lenV - j > m.vMaxStops[ru] || j + lenU - i > m.vMaxStops[rv]) return Infinity;
    if (s.pre0[ou + i] + s.sum0[rv] - s.pre0[ov + j] > m.vCap0[ru] || s.pre1[ou + i] + s.sum1[rv] - s.pre1[ov + j] > m.vCap1[ru]) return Infinity;
    if (s.pre0[ov + j] + s.sum0[ru] - s.pre0[ou + i] > m.vCap0[rv] || s.pre1[ov + j] + s.sum1[ru] - s.pre1[ou + i] > m.vCap1[rv]) return Infinity;
    if (!reaches(s, s.start[ou + i], u, rv, j + 1)) return Infinity;
    return reaches(s, s.start[ov + j], v, ru, i + 1) ? delta : Infinity;
  },
  apply(s: Solution, u: number, rv: number, j: number, w: Work): void {
    const ru = s.routeOf[u];
    const i = s.posOf[u];
    const a = w.scratchA;
    const b = w.scratchB;
    const na = copyRun(s, rv, j + 1, s.len[rv], a, copyRun(s, ru, 1, i, a, 0));
    const nb = copyRun(s, ru, i + 1, s.len[ru], b, copyRun(s, rv, 1, j, b, 0));
    rewriteBoth(s, w, ru, na, rv, nb);
  },
};
