import { earliestStart, MAX_WINDOWS } from './model.ts';
import { merge, merged } from './segments.ts';
import type { Rng } from './rng.ts';
import type { Solution } from './solution.ts';
import type { Work } from './work.ts';

const BLINK_RATE = 0.01;
/** Above this many routes in use, a customer is tried only in the routes of its nearest neighbours. */
const ALL_ROUTES_UP_TO = 25;
const GRANULAR_NEIGHBOURS = 40;
/** Orders left out by earlier iterations tried again per iteration, beyond the ones just removed. */
const RETRY_UNASSIGNED = 20;

/**
 * Greedy insertion with blinks (SISR): the customers to place, in one of four orders (random,
 * largest load, farthest from the depot, closest), each at its cheapest feasible position, every
 * position skipped with probability BLINK_RATE. A customer with no feasible position stays
 * unassigned.
 */
export function recreate(s: Solution, rng: Rng, w: Work): void {
  let k = 0;
  for (let i = 0; i < w.removedCount; i++) {
    w.pending[k++] = w.removed[i];
    w.drop[w.removed[i]] = 1;
  }
  // Earlier leftovers: all of them when few, else a random sample (the list is rotated).
  const extra = s.unCount - w.removedCount;
  if (extra > 0) {
    const take = Math.min(extra, RETRY_UNASSIGNED);
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
  for (let i = 0; i < k; i++) insertBest(s, rng, w, w.pending[i]);
}

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
    w.keys[i] =
      pick < 8 ? -(m.load0[c] * m.loadScale0 + m.load1[c] * m.loadScale1) : pick < 10 ? -m.dist[c] : m.dist[c];
  }
  // Insertion sort: a few dozen customers, and stable, so the shuffle breaks ties.
  for (let i = 1; i < k; i++) {
    const c = w.pending[i];
    const key = w.keys[i];
    let j = i - 1;
    while (j >= 0 && w.keys[j] > key) {
      w.pending[j + 1] = w.pending[j];
      w.keys[j + 1] = w.keys[j];
      j--;
    }
    w.pending[j + 1] = c;
    w.keys[j + 1] = key;
  }
}

function insertBest(s: Solution, rng: Rng, w: Work, c: number): void {
  const m = s.m;
  const V = m.vehicles;
  let used = 0;
  for (let r = 0; r < V; r++) if (s.len[r] > 0) used++;
  const granular = used > ALL_ROUTES_UP_TO;
  const stamp = ++w.stamp;
  let bestCost = Infinity;
  let bestRoute = -1;
  let bestPos = -1;
  if (granular) {
    const nb = Math.min(GRANULAR_NEIGHBOURS, m.nbCount);
    for (let j = 0; j < nb; j++) {
      const r = s.routeOf[m.neighbours[c * m.nbCount + j]];
      if (r < 0 || w.routeStamp[r] === stamp) continue;
      w.routeStamp[r] = stamp;
      const found = tryRoute(s, rng, c, r, bestCost);
      if (found >= 0) {
        bestCost = foundCost;
        bestRoute = r;
        bestPos = found;
      }
    }
  }
  for (let r = 0; r < V; r++) {
    const empty = s.len[r] === 0;
    if (granular && !empty) continue;
    if (empty) {
      const cls = m.vClass[r];
      if (w.classStamp[cls] === stamp) continue;
      w.classStamp[cls] = stamp;
    }
    const found = tryRoute(s, rng, c, r, bestCost);
    if (found >= 0) {
      bestCost = foundCost;
      bestRoute = r;
      bestPos = found;
    }
  }
  if (bestRoute < 0) return;
  s.insert(c, bestRoute, bestPos);
  w.touch(bestRoute);
}

let foundCost = 0;

/**
 * The cheapest feasible position for c in route r costing less than `bound` (1 .. len + 1), its
 * cost in `foundCost`; -1 if none. Each position is checked in O(1): the earliest start there,
 * then the arrival at the next stop against its latest feasible arrival.
 */
function tryRoute(s: Solution, rng: Rng, c: number, r: number, bound: number): number {
  const m = s.m;
  if (m.compat[c * m.vehicles + r] === 0) return -1;
  const len = s.len[r];
  if (len >= m.vMaxStops[r]) return -1;
  if (s.sum0[r] + m.load0[c] > m.vCap0[r] || s.sum1[r] + m.load1[c] > m.vCap1[r]) return -1;
  if (m.durationObjective) return tryRouteByDuration(s, rng, c, r, bound);
  const size = m.size;
  const arc = m.arc;
  const time = m.time;
  const nodes = s.nodes;
  const o = s.off[r];
  const svcC = m.service[c];
  const rowC = c * size;
  let best = -1;
  let bestCost = bound;
  let p = 0;
  for (let i = 0; i <= len; i++) {
    const q = nodes[o + i + 1];
    if (rng.next() < BLINK_RATE) {
      p = q;
      continue;
    }
    const delta = arc[p * size + c] + arc[rowC + q] - arc[p * size + q];
    if (delta < bestCost) {
      const st = earliestStart(m, c, s.start[o + i] + m.service[p] + time[p * size + c]);
      if (st + svcC + time[rowC + q] <= s.lateArr[o + i + 1]) {
        best = i + 1;
        bestCost = delta;
      }
    }
    p = q;
  }
  foundCost = bestCost;
  return best;
}

/**
 * As tryRoute, priced by the route's least duration (waiting included) through duration segments:
 * prefix, the new stop in the window it would be served in, suffix. A stop pushed into a later
 * window by the insertion shows as time warp, counted as duration.
 */
function tryRouteByDuration(s: Solution, rng: Rng, c: number, r: number, bound: number): number {
  const m = s.m;
  const f = s.fwd!;
  const b = s.bwd!;
  const len = s.len[r];
  const size = m.size;
  const time = m.time;
  const nodes = s.nodes;
  const o = s.off[r];
  const svcC = m.service[c];
  const rowC = c * size;
  const base = f.dur[o + len + 1] + f.tw[o + len + 1];
  // The new duration is at least the new travel and service: what waiting there is may be absorbed, no more.
  let busy = 0;
  for (let i = 0; i <= len; i++) busy += m.service[nodes[o + i]] + time[nodes[o + i] * size + nodes[o + i + 1]];
  const slack = svcC - (base - busy);
  let best = -1;
  let bestCost = bound;
  let p = 0;
  for (let i = 0; i <= len; i++) {
    const q = nodes[o + i + 1];
    if (rng.next() < BLINK_RATE || time[p * size + c] + time[rowC + q] - time[p * size + q] + slack >= bestCost) {
      p = q;
      continue;
    }
    const arrival = s.start[o + i] + m.service[p] + time[p * size + c];
    const st = earliestStart(m, c, arrival);
    if (st + svcC + time[rowC + q] <= s.lateArr[o + i + 1]) {
      let w = 0;
      while (w < m.twCount[c] - 1 && arrival > m.twClose[c * MAX_WINDOWS + w]) w++;
      const k = c * MAX_WINDOWS + w;
      const j = o + i;
      merge(f.dur[j], f.tw[j], f.early[j], f.late[j], time[p * size + c], svcC, 0, m.twOpen[k], m.twClose[k]);
      merge(merged.dur, merged.tw, merged.early, merged.late, time[rowC + q], b.dur[j + 1], b.tw[j + 1], b.early[j + 1], b.late[j + 1]);
      const delta = merged.dur + merged.tw - base;
      if (delta < bestCost) {
        best = i + 1;
        bestCost = delta;
      }
    }
    p = q;
  }
  foundCost = bestCost;
  return best;
}
