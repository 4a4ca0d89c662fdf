import type { Penalties } from '../cost.ts';
import { earliestStart, type Model } from '../model.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';

/**
 * The local search's protocol, after PyVRP's node operators (`pyvrp/search/`, one operator a file:
 * `Exchange`, `SwapTails`): a move changes customer u's route and the route `rv` around its
 * position `j` (0: the depot left). `evaluate` returns the change of the objective, or Infinity
 * when the result breaks a window, a load, a skill or a stop limit; it counts its work. A
 * non-improving delta is returned before any feasibility check (most candidates stop there).
 * `apply` makes the move and records both routes in `work.touched`.
 */
export interface Move {
  readonly name: string;
  evaluate(s: Solution, u: number, rv: number, j: number, p: Penalties): number;
  apply(s: Solution, u: number, rv: number, j: number, w: Work): void;
}

/** The earliest start of service at c after serving `from` from time t (Infinity when every window has closed). */
export function startAfter(m: Model, t: number, from: number, c: number): number {
  return earliestStart(m, c, t + m.service[from] + m.time[from * m.size + c]);
}

/** Whether leaving `from`, served from t, reaches position i of route r in time for the rest of r (its latest arrival). */
export function reaches(s: Solution, t: number, from: number, r: number, i: number): boolean {
  const m = s.m;
  const j = s.off[r] + i;
  return t + m.service[from] + m.time[from * m.size + s.nodes[j]] <= s.lateArr[j];
}

/** Whether route r's vehicle may take c on top of what it carries now, less `out0`/`out1` leaving it. */
export function loadFits(s: Solution, c: number, r: number, out0: number, out1: number): boolean {
  const m = s.m;
  return m.compat[c * m.vehicles + r] !== 0 && s.sum0[r] - out0 + m.load0[c] <= m.vCap0[r] && s.sum1[r] - out1 + m.load1[c] <= m.vCap1[r];
}

/** Rebuilds route r from `stops[0 .. count)`, refreshing its schedule: the moves' one way to change a route. */
export function rewrite(s: Solution, r: number, stops: Int32Array, count: number): void {
  const m = s.m;
  const o = s.off[r];
  let l0 = 0;
  let l1 = 0;
  for (let i = 0; i < count; i++) {
    const c = stops[i];
    s.nodes[o + i + 1] = c;
    s.routeOf[c] = r;
    s.posOf[c] = i + 1;
    l0 += m.load0[c];
    l1 += m.load1[c];
  }
  s.nodes[o + count + 1] = 0;
  s.len[r] = count;
  // Float sums drift when loads come and go; summing afresh keeps an emptied route exactly empty.
  s.sum0[r] = l0;
  s.sum1[r] = l1;
  s.refresh(r);
}

/** Appends route r's stops at positions `from .. to` (none when `to` < `from`) to `dst` from index n; the new length. */
export function copyRun(s: Solution, r: number, from: number, to: number, dst: Int32Array, n: number): number {
  const o = s.off[r];
  for (let x = from; x <= to; x++) dst[n++] = s.nodes[o + x];
  return n;
}

/** Every move ends so: route ru rebuilt from `w.scratchA[0 .. na)`, rv from `w.scratchB[0 .. nb)`, both recorded as touched. */
export function rewriteBoth(s: Solution, w: Work, ru: number, na: number, rv: number, nb: number): void {
  rewrite(s, ru, w.scratchA, na);
  rewrite(s, rv, w.scratchB, nb);
  w.touch(ru);
  w.touch(rv);
}

/**
 * Whether route r stays feasible with its positions from `first` on re-sequenced as the run of
 * its current positions `from1 .. to1`, then the run `from2 .. to2` if `from2` > 0 (a run counts
 * down when its `to` is below its `from`), every position after them unchanged. The runs are
 * scheduled forward from the unchanged prefix, then checked against the suffix's latest arrival:
 * O(runs' length), paid only by a move that already lowers the distance, and reading the route in
 * place needs no scratch.
 */
export function runsFit(s: Solution, r: number, first: number, from1: number, to1: number, from2 = 0, to2 = 0): boolean {
  const m = s.m;
  const o = s.off[r];
  let prev = s.nodes[o + first - 1];
  let t = s.start[o + first - 1];
  let count = 0;
  for (let run = 0; run < 2; run++) {
    const from = run === 0 ? from1 : from2;
    const to = run === 0 ? to1 : to2;
    if (from <= 0) break;
    const step = to >= from ? 1 : -1;
    for (let x = from; ; x += step) {
      const c = s.nodes[o + x];
      t = startAfter(m, t, prev, c);
      count++;
      if (t === Infinity) break;
      prev = c;
      if (x === to) break;
    }
    if (t === Infinity) break;
  }
  s.meter.work += count;
  return t !== Infinity && reaches(s, t, prev, r, first + count);
}
