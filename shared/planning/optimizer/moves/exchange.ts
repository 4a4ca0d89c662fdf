import type { Penalties } from '../cost.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import { copyRun, type Move, reaches, rewriteBoth, startAfter } from './move.ts';

/**
 * Exchange of runs (PyVRP's Exchange<N, M>, N >= 2, N >= M >= 1): u and the nu - 1 stops after it trade
 * places with the stop at position j of another route rv and the nv - 1 after it, each run kept in
 * its order. swap.ts is the (1, 1) case; (2, 1) and (2, 2) move two neighbours together, which a
 * relocate followed by a swap cannot do when the relocate alone breaks a load or a window.
 */
export const exchange = (nu: 2 | 3, nv: 1 | 2 | 3): Move => ({
  name: `exchange ${nu}-${nv}`,
  evaluate(s: Solution, u: number, rv: number, j: number, _p: Penalties): number {
    const m = s.m;
    const ru = s.routeOf[u];
    if (ru === rv || j < 1) return Infinity;
    const ou = s.off[ru];
    const ov = s.off[rv];
    const i = s.posOf[u];
    const lenU = s.len[ru];
    const lenV = s.len[rv];
    if (i + nu - 1 > lenU || j + nv - 1 > lenV) return Infinity;
    const size = m.size;
    const arc = m.arc;
    const lu = s.nodes[ou + i + nu - 1];
    const v = s.nodes[ov + j];
    const lv = s.nodes[ov + j + nv - 1];
    const pu = s.nodes[ou + i - 1];
    const nx = s.nodes[ou + i + nu];
    const pv = s.nodes[ov + j - 1];
    const ny = s.nodes[ov + j + nv];
    const delta =
      arc[pu * size + v] + arc[lv * size + nx] - arc[pu * size + u] - arc[lu * size + nx] + arc[pv * size + u] + arc[lu * size + ny] - arc[pv * size + v] - arc[lv * size + ny];
    if (delta >= -1e-9) return delta;
    if (lenU - nu + nv > m.vMaxStops[ru] || lenV - nv + nu > m.vMaxStops[rv]) return Infinity;
    if (!runFits(s, ru, i, rv, j, nv, i + nu) || !runFits(s, rv, j, ru, i, nu, j + nv)) return Infinity;
    return delta;
  },
  apply(s: Solution, u: number, rv: number, j: number, w: Work): void {
    const ru = s.routeOf[u];
    const i = s.posOf[u];
    const a = w.scratchA;
    const b = w.scratchB;
    let na = copyRun(s, ru, 1, i - 1, a, 0);
    na = copyRun(s, rv, j, j + nv - 1, a, na);
    na = copyRun(s, ru, i + nu, s.len[ru], a, na);
    let nb = copyRun(s, rv, 1, j - 1, b, 0);
    nb = copyRun(s, ru, i, i + nu - 1, b, nb);
    nb = copyRun(s, rv, j + nv, s.len[rv], b, nb);
    rewriteBoth(s, w, ru, na, rv, nb);
  },
});

/**
 * Whether route r, its stops from position `at` on replaced up to (not including) position
 * `resume` by the `count` stops of route `from` starting at position `k`, keeps every window,
 * load, skill: the run scheduled forward from r's prefix, then r's suffix's latest arrival.
 */
function runFits(s: Solution, r: number, at: number, from: number, k: number, count: number, resume: number): boolean {
  const m = s.m;
  const o = s.off[r];
  const of = s.off[from];
  let in0 = 0;
  let in1 = 0;
  for (let x = 0; x < count; x++) {
    const c = s.nodes[of + k + x];
    if (m.compat[c * m.vehicles + r] === 0) return false;
    in0 += m.load0[c];
    in1 += m.load1[c];
  }
  const out0 = s.pre0[o + resume - 1] - s.pre0[o + at - 1];
  const out1 = s.pre1[o + resume - 1] - s.pre1[o + at - 1];
  if (s.sum0[r] - out0 + in0 > m.vCap0[r] || s.sum1[r] - out1 + in1 > m.vCap1[r]) return false;
  let prev = s.nodes[o + at - 1];
  let t = s.start[o + at - 1];
  s.meter.work += count;
  for (let x = 0; x < count; x++) {
    const c = s.nodes[of + k + x];
    t = startAfter(m, t, prev, c);
    if (t === Infinity) return false;
    prev = c;
  }
  return reaches(s, t, prev, r, resume);
}
