import { arrivalIfFits, fitsAt, routeCanTake } from '../feasibility.ts';
import { MAX_WINDOWS } from '../model.ts';
import type { Rng } from '../rng.ts';
import { merge } from '../segments.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';
import type { Recreate } from './operator.ts';

/** Above this many routes in use, a customer is tried only in the routes of its granular neighbours (model.ts). */
const ALL_ROUTES_UP_TO = 25;

/**
 * Greedy insertion with blinks (SISR): the customers to place, in one of four orders (random,
 * largest load, farthest from the depot, closest), each at its cheapest feasible position, every
 * position skipped with probability `work.blinkRate`. A customer with no feasible position stays
 * unassigned.
 */
export const recreateWithBlinks: Recreate = {
  name: 'greedy insertion with blinks',
  apply(s: Solution, rng: Rng, w: Work): void {
    let k = 0;
    for (let i = 0; i < w.removedCount; i++) {
      w.pending[k++] = w.removed[i];
      w.drop[w.removed[i]] = 1;
    }
    // Earlier leftovers: all of them when few, else a random sample (the list is rotated).
    const extra = s.unCount - w.removedCount;
    if (extra > 0) {
      const take = Math.min(extra, w.retryUnassigned);
      const from = rng.int(s.unCount);
      for (let i = 0, got = 0; i < s.unCount && got < take; i++) {
        const c = s.unassigned[(from + i) % s.unCount];
        if (w.drop[c]) continue;
        w.pending[k++] = c;
        got++;
      }
    }
    for (let i = 0; i < w.removedCount; i++) w.drop[w.removed[i]] = 0;
    sortPending(s, rng, w, k);
    for (let i = 0; i < k; i++) insertCheapest(s, rng, w, w.pending[i]);
  },
};

function sortPending(s: Solution, rng: Rng, w: Work, k: number): void {
  const m = s.m;
  const pick = rng.int(11);
  for (let i = k - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = w.pending[i];
    w.pending[i] = w.pending[j];
    w.pending[j] = t;
  }
  if (pick < 4) return;
  for (let i = 0; i < k; i++) {
    const c = w.pending[i];
    w.keys[i] = pick < 8 ? -(m.load0[c] * m.loadScale0 + m.load1[c] * m.loadScale1) : pick < 10 ? -m.dist[c] : m.dist[c];
  }
  // Insertion sort: a few dozen customers, and stable, so the shuffle breaks ties. Each step is work
  // (fleet minimisation sorts a whole route's customers and more).
  let steps = 0;
  for (let i = 1; i < k; i++) {
    const c = w.pending[i];
    const key = w.keys[i];
    let j = i - 1;
    while (j >= 0 && w.keys[j] > key) {
      w.pending[j + 1] = w.pending[j];
      w.keys[j + 1] = w.keys[j];
      j--;
    }
    steps += i - j;
    w.pending[j + 1] = c;
    w.keys[j + 1] = key;
  }
  w.meter.work += steps;
}

/**
 * Puts c at its cheapest feasible position, if any; true when it was placed. Past ALL_ROUTES_UP_TO
 * routes in use, only the routes of its nearest neighbours and one empty vehicle of each kind are
 * tried first, then every route if none of those can take it (the granular cut never leaves an
 * order out). No empty vehicle is opened beyond `work.routeCap` routes.
 */
export function insertCheapest(s: Solution, rng: Rng, w: Work, c: number): boolean {
  const m = s.m;
  const V = m.vehicles;
  const used = s.used();
  // Counting the routes and scanning the fleet: work in proportion to the vehicles, whatever fits.
  w.meter.work += V;
  const granular = used > ALL_ROUTES_UP_TO;
  const mayOpen = used < w.routeCap;
  const stamp = ++w.stamp;
  let bestCost = Infinity;
  let bestRoute = -1;
  let bestPos = -1;
  if (granular) {
    const nb = m.granularCount;
    for (let j = 0; j < nb; j++) {
      const r = s.routeOf[m.granular[c * nb + j]];
      if (r < 0 || w.routeStamp[r] === stamp) continue;
      w.routeStamp[r] = stamp;
      const found = cheapestIn(s, rng, w, c, r, bestCost);
      if (found >= 0) {
        bestCost = w.foundCost;
        bestRoute = r;
        bestPos = found;
      }
    }
  }
  for (let r = 0; r < V; r++) {
    const empty = s.len[r] === 0;
    if (granular && !empty) continue;
    if (empty) {
      if (!mayOpen) continue;
      const cls = m.vClass[r];
      if (w.classStamp[cls] === stamp) continue;
      w.classStamp[cls] = stamp;
    }
    const found = cheapestIn(s, rng, w, c, r, bestCost);
    if (found >= 0) {
      bestCost = w.foundCost;
      bestRoute = r;
      bestPos = found;
    }
  }
  // Far from its neighbours' routes, an order may still fit elsewhere: look everywhere before leaving it out.
  if (bestRoute < 0 && granular) {
    for (let r = 0; r < V; r++) {
      if (s.len[r] === 0 || w.routeStamp[r] === stamp) continue;
      const found = cheapestIn(s, rng, w, c, r, bestCost);
      if (found >= 0) {
        bestCost = w.foundCost;
        bestRoute = r;
        bestPos = found;
      }
    }
  }
  if (bestRoute < 0) return false;
  s.insert(c, bestRoute, bestPos);
  w.touch(bestRoute);
  return true;
}

/**
 * The cheapest feasible position for c in route r costing less than `bound` (1 .. len + 1), its
 * price in `work.foundCost`; -1 if none. Priced by the objective's arcs, or under `duration` by
 * the route's least duration, waiting included, through duration segments: prefix, the new stop
 * in the window it would be served in, suffix (a stop pushed into a later window shows as time
 * warp, counted as duration).
 */
function cheapestIn(s: Solution, rng: Rng, w: Work, c: number, r: number, bound: number): number {
  if (!routeCanTake(s, c, r)) return -1;
  const m = s.m;
  const len = s.len[r];
  // A position priced by duration segments (two merges, and the route's busy time) costs about three priced by arcs.
  w.meter.work += m.durationObjective ? 3 * (len + 1) : len + 1;
  const size = m.size;
  const nodes = s.nodes;
  const o = s.off[r];
  const rowC = c * size;
  const blink = w.blinkRate;
  let best = -1;
  let bestCost = bound;
  if (!m.durationObjective) {
    const arc = m.arc;
    let p = 0;
    for (let i = 0; i <= len; i++) {
      const q = nodes[o + i + 1];
      if (blink > 0 && rng.next() < blink) {
        p = q;
        continue;
      }
      const delta = arc[p * size + c] + arc[rowC + q] - arc[p * size + q];
      if (delta < bestCost && fitsAt(s, c, r, i)) {
        best = i + 1;
        bestCost = delta;
      }
      p = q;
    }
    w.foundCost = bestCost;
    return best;
  }
  const f = s.fwd!;
  const b = s.bwd!;
  const time = m.time;
  const out = w.merged;
  const svcC = m.service[c];
  const base = f.dur[o + len + 1] + f.tw[o + len + 1];
  // The new duration is at least the new travel and service: what waiting there is may be absorbed, no more.
  let busy = 0;
  for (let i = 0; i <= len; i++) busy += m.service[nodes[o + i]] + time[nodes[o + i] * size + nodes[o + i + 1]];
  const slack = svcC - (base - busy);
  let p = 0;
  for (let i = 0; i <= len; i++) {
    const q = nodes[o + i + 1];
    if ((blink > 0 && rng.next() < blink) || time[p * size + c] + time[rowC + q] - time[p * size + q] + slack >= bestCost) {
      p = q;
      continue;
    }
    const arrival = arrivalIfFits(s, c, r, i);
    if (arrival === arrival) {
      let win = 0;
      while (win < m.twCount[c] - 1 && arrival > m.twClose[c * MAX_WINDOWS + win]) win++;
      const k = c * MAX_WINDOWS + win;
      const j = o + i;
      merge(out, f.dur[j], f.tw[j], f.early[j], f.late[j], time[p * size + c], svcC, 0, m.twOpen[k], m.twClose[k]);
      merge(out, out.dur, out.tw, out.early, out.late, time[rowC + q], b.dur[j + 1], b.tw[j + 1], b.early[j + 1], b.late[j + 1]);
      const delta = out.dur + out.tw - base;
      if (delta < bestCost) {
        best = i + 1;
        bestCost = delta;
      }
    }
    p = q;
  }
  w.foundCost = bestCost;
  return best;
}
