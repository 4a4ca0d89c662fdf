import type { Penalties } from './cost.ts';
import { exchange } from './moves/exchange.ts';
import type { Move } from './moves/move.ts';
import { orOpt } from './moves/or-opt.ts';
import { relocate } from './moves/relocate.ts';
import { swapTails } from './moves/swap-tails.ts';
import { swap } from './moves/swap.ts';
import { twoOpt } from './moves/two-opt.ts';
import type { Rng } from './rng.ts';
import type { Solution } from './solution.ts';
import type { Work } from './work.ts';

/** PyVRP's default node operators for VRPTW, cheapest first. */
export const MOVES: readonly Move[] = [relocate(1), relocate(2), swap, exchange(2, 1), exchange(2, 2), swapTails];
/** Within one route (u and its neighbour v on the same route), cheapest first. */
export const INTRA_MOVES: readonly Move[] = [orOpt(1), orOpt(2), orOpt(3), twoOpt];
/**
 * Fleet minimisation's: 2.2.0's moves between routes, none within one. It polishes every candidate
 * it accepts, and the exchanges and within-route moves spent its work for fewer routes removed
 * (Solomon 56 under `vehicles`: +10 routes over the best known counts with them, +8 without;
 * docs/performance.md, 2.4.0).
 */
export const FLEET_MOVES: readonly Move[] = [relocate(1), relocate(2), swap, swapTails];

/**
 * Granular local search (Vidal et al. 2013; PyVRP's LocalSearch, pyvrp/search/LocalSearch.cpp):
 * each customer u of routes `routes[0 .. count)`, in random order, against each of its granular
 * neighbours v (model.ts): every move of `moves` when v is on another route, of `intra` when on
 * u's own, tried with u after v, and after the depot when v opens its route; the first that lowers the objective and keeps the routes feasible is
 * made. Passes repeat until one changes nothing; a pair is skipped when neither route changed
 * since u was last tested (PyVRP's lastModified). Each neighbour scanned and each evaluation is work, so
 * the budget stays deterministic and follows CPU time. Distance objectives only: under `duration` a move's price needs the
 * duration segments, which the moves do not evaluate. Returns the objective's change (<= 0).
 */
export function localSearch(
  s: Solution,
  rng: Rng,
  w: Work,
  p: Penalties,
  routes: Int32Array,
  count: number,
  moves: readonly Move[] = MOVES,
  intra: readonly Move[] = INTRA_MOVES,
): number {
  const m = s.m;
  if (m.durationObjective) return 0;
  const order = w.lsOrder;
  let k = 0;
  const start = ++w.lsClock;
  for (let x = 0; x < count; x++) {
    const r = routes[x];
    w.lastModified[r] = start;
    const o = s.off[r];
    for (let i = 1; i <= s.len[r]; i++) order[k++] = s.nodes[o + i];
  }
  for (let i = k - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (let i = 0; i < k; i++) w.lastTested[order[i]] = start - 1;
  w.meter.work += k;
  const nb = m.granularCount;
  // One polish may follow many accepted candidates left unpolished, and take tens of thousands of
  // units: it stops with the budget, between two customers, each move it made complete.
  const limit = w.meter.maxWork ?? Infinity;
  let total = 0;
  for (let improved = true; improved; ) {
    improved = false;
    for (let x = 0; x < k; x++) {
      if (w.meter.work >= limit) return total;
      const u = order[x];
      const tested = w.lastTested[u];
      w.lastTested[u] = w.lsClock;
      // Scanning u's neighbours costs about what a move's evaluation does, skipped or not.
      w.meter.work += nb;
      for (let y = 0; y < nb; y++) {
        const ru = s.routeOf[u];
        const v = m.granular[u * nb + y];
        const rv = s.routeOf[v];
        if (ru < 0 || rv < 0) continue;
        if (w.lastModified[ru] <= tested && w.lastModified[rv] <= tested) continue;
        const list = rv === ru ? intra : moves;
        if (list.length === 0) continue;
        const j = s.posOf[v];
        const delta = tryMoves(s, w, p, list, u, rv, j) || (j === 1 ? tryMoves(s, w, p, list, u, rv, 0) : 0);
        if (delta < 0) {
          total += delta;
          improved = true;
          const now = ++w.lsClock;
          w.lastModified[ru] = now;
          w.lastModified[rv] = now;
        }
      }
    }
  }
  return total;
}

/** The first improving move of u to after position j of rv, made; its delta, or 0 when none. */
function tryMoves(s: Solution, w: Work, p: Penalties, moves: readonly Move[], u: number, rv: number, j: number): number {
  // An evaluation costs about two insertion positions (two arcs out, two in, two slack checks).
  w.meter.work += 2 * moves.length;
  for (const move of moves) {
    const delta = move.evaluate(s, u, rv, j, p);
    if (delta < -1e-9) {
      move.apply(s, u, rv, j, w);
      return delta;
    }
  }
  return 0;
}
