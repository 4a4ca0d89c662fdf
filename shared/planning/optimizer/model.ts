import type { PlanningProblem } from '../problem.ts';

/** At most this many windows per order (decisions 15). */
export const MAX_WINDOWS = 3;
/** An order without windows may start at any time: one window wider than any shift. */
const OPEN = 1e15;

/**
 * The problem compiled into flat typed arrays: the search reads nothing else, so its hot loop
 * touches no objects and allocates nothing.
 */
export interface Model {
  /** Orders; locations are 0 (depot) .. n. */
  n: number;
  size: number;
  vehicles: number;
  dist: Float64Array;
  time: Float64Array;
  /** The matrix whose sum the objective minimises (distance, or travel time for `duration`). */
  arc: Float64Array;
  durationObjective: boolean;
  /** Whether `arc` is symmetric: then reversing a stretch of a route leaves its own arcs' sum unchanged (moves/two-opt.ts). */
  symmetric: boolean;
  /** `vehicles`: fewest routes before least distance (decisions 18). */
  vehiclesObjective: boolean;
  service: Float64Array;
  twCount: Uint8Array;
  twOpen: Float64Array;
  twClose: Float64Array;
  load0: Float64Array;
  load1: Float64Array;
  vStart: Float64Array;
  vEnd: Float64Array;
  vCap0: Float64Array;
  vCap1: Float64Array;
  /** Stops a vehicle may take: its maxStops, never more than the orders. */
  vMaxStops: Int32Array;
  /** compat[location * vehicles + v] = 1 when the vehicle has every skill of the order. */
  compat: Uint8Array;
  /** 1 / the largest finite capacity per dimension: loads of both dimensions on one scale. */
  loadScale0: number;
  loadScale1: number;
  /** Vehicles alike in every constraint share a class: of empty ones, only one per class is tried. */
  vClass: Int32Array;
  classCount: number;
  /** For each location, the other orders' locations nearest first (`nbCount` each): the ruin's adjacency. */
  neighbours: Int32Array;
  nbCount: number;
  /**
   * For each order, the `granularCount` orders most likely to follow or precede it in a good
   * route, by distance plus the least waiting and time warp between their windows (PyVRP's
   * neighbourhood.py): the granular recreate's candidates.
   */
  granular: Int32Array;
  granularCount: number;
}

/** PyVRP's NeighbourhoodParams defaults (pyvrp/search/neighbourhood.py). */
const WEIGHT_WAIT = 0.2;
const WEIGHT_TIME_WARP = 1;
export const GRANULAR_NEIGHBOURS = 40;

export function compileModel(problem: PlanningProblem): Model {
  const n = problem.orders.length;
  const size = n + 1;
  const V = problem.vehicles.length;
  const service = new Float64Array(size);
  const twCount = new Uint8Array(size);
  const twOpen = new Float64Array(size * MAX_WINDOWS);
  const twClose = new Float64Array(size * MAX_WINDOWS);
  const load0 = new Float64Array(size);
  const load1 = new Float64Array(size);
  problem.orders.forEach((order, i) => {
    const c = i + 1;
    service[c] = order.service;
    load0[c] = order.load[0];
    load1[c] = order.load[1];
    const windows = order.windows.length === 0 ? [[-OPEN, OPEN] as const] : order.windows.slice(0, MAX_WINDOWS);
    twCount[c] = windows.length;
    windows.forEach(([from, to], w) => {
      twOpen[c * MAX_WINDOWS + w] = from;
      twClose[c * MAX_WINDOWS + w] = to;
    });
  });
  twCount[0] = 1;
  twOpen[0] = -OPEN;
  twClose[0] = OPEN;

  const vStart = new Float64Array(V);
  const vEnd = new Float64Array(V);
  const vCap0 = new Float64Array(V);
  const vCap1 = new Float64Array(V);
  const vMaxStops = new Int32Array(V);
  const compat = new Uint8Array(size * V);
  problem.vehicles.forEach((vehicle, v) => {
    vStart[v] = vehicle.shiftStart;
    vEnd[v] = vehicle.shiftEnd;
    vCap0[v] = vehicle.capacity[0];
    vCap1[v] = vehicle.capacity[1];
    vMaxStops[v] = Math.max(0, Math.min(vehicle.maxStops, n));
    const skills = new Set(vehicle.skills);
    problem.orders.forEach((order, i) => {
      compat[(i + 1) * V + v] = order.skills.every((s) => skills.has(s)) ? 1 : 0;
    });
  });

  const vClass = new Int32Array(V);
  const classes = new Map<string, number>();
  for (let v = 0; v < V; v++) {
    let key = `${vStart[v]},${vEnd[v]},${vCap0[v]},${vCap1[v]},${vMaxStops[v]},`;
    for (let c = 1; c < size; c++) key += compat[c * V + v];
    if (!classes.has(key)) classes.set(key, classes.size);
    vClass[v] = classes.get(key)!;
  }

  const nbCount = Math.min(Math.max(n - 1, 0), 100);
  const neighbours = new Int32Array(size * nbCount);
  const others = new Array<number>(n);
  for (let c = 0; c < size; c++) {
    let k = 0;
    for (let o = 1; o <= n; o++) if (o !== c) others[k++] = o;
    const row = c * size;
    const list = others.slice(0, k).sort((a, b) => problem.distance[row + a] - problem.distance[row + b] || a - b);
    for (let j = 0; j < nbCount; j++) neighbours[c * nbCount + j] = list[j];
  }

  const granularCount = Math.min(nbCount, GRANULAR_NEIGHBOURS);
  const granular = timeAwareNeighbours(problem, service, twCount, twOpen, twClose, granularCount);

  const durationObjective = problem.objective === 'duration';
  return {
    n,
    size,
    vehicles: V,
    dist: problem.distance,
    time: problem.duration,
    arc: durationObjective ? problem.duration : problem.distance,
    durationObjective,
    symmetric: isSymmetric(durationObjective ? problem.duration : problem.distance, size),
    vehiclesObjective: problem.objective === 'vehicles',
    service,
    twCount,
    twOpen,
    twClose,
    load0,
    load1,
    vStart,
    vEnd,
    vCap0,
    vCap1,
    vMaxStops,
    compat,
    loadScale0: scaleOf(vCap0),
    loadScale1: scaleOf(vCap1),
    vClass,
    classCount: classes.size,
    neighbours,
    nbCount,
    granular,
    granularCount,
  };
}

/**
 * Proximity as PyVRP computes it (pyvrp/search/neighbourhood.py, after Vidal et al. 2013): the
 * arc's distance, plus 0.2 times the least wait of serving j right after i, plus the least time
 * warp, symmetrised by the smaller of (i, j) and (j, i). With several windows an order counts
 * from its first opening to its last close.
 */
function timeAwareNeighbours(problem: PlanningProblem, service: Float64Array, twCount: Uint8Array, twOpen: Float64Array, twClose: Float64Array, k: number): Int32Array {
  const n = problem.orders.length;
  const size = n + 1;
  const early = new Float64Array(size);
  const late = new Float64Array(size);
  for (let c = 1; c < size; c++) {
    early[c] = twOpen[c * MAX_WINDOWS];
    late[c] = twClose[c * MAX_WINDOWS + twCount[c] - 1];
  }
  const oneWay = (i: number, j: number): number => {
    const d = problem.duration[i * size + j];
    const wait = Math.max(0, early[j] - d - service[i] - late[i]);
    const warp = Math.max(0, early[i] + service[i] + d - late[j]);
    return problem.distance[i * size + j] + WEIGHT_WAIT * wait + WEIGHT_TIME_WARP * warp;
  };
  const result = new Int32Array(size * k);
  const others = new Int32Array(n);
  const proximity = new Float64Array(size);
  for (let c = 1; c < size; c++) {
    let m = 0;
    for (let o = 1; o < size; o++) {
      if (o === c) continue;
      proximity[o] = Math.min(oneWay(c, o), oneWay(o, c));
      others[m++] = o;
    }
    const list = Array.from(others.subarray(0, m)).sort((a, b) => proximity[a] - proximity[b] || a - b);
    for (let j = 0; j < k; j++) result[c * k + j] = list[j];
  }
  return result;
}

/** The earliest start of service at location c when arriving at `arrival`; Infinity if every window has closed. */
export function earliestStart(m: Model, c: number, arrival: number): number {
  const base = c * MAX_WINDOWS;
  const k = m.twCount[c];
  for (let w = 0; w < k; w++) {
    if (arrival <= m.twClose[base + w]) {
      const open = m.twOpen[base + w];
      return arrival > open ? arrival : open;
    }
  }
  return Infinity;
}

/**
 * The latest start of service at c no later than `limit`: the close of the last window opening by
 * then, or `limit` itself inside it; -Infinity if none opens by then. Arriving later than this
 * cannot start service by `limit` (the start is monotone in the arrival), which is what makes the
 * backward pass exact with several windows (VROOM's TWRoute::bwd_update_latest_from does the same).
 */
export function latestStart(m: Model, c: number, limit: number): number {
  const base = c * MAX_WINDOWS;
  for (let w = m.twCount[c] - 1; w >= 0; w--) {
    if (m.twOpen[base + w] <= limit) {
      const close = m.twClose[base + w];
      return close < limit ? close : limit;
    }
  }
  return -Infinity;
}

function isSymmetric(matrix: Float64Array, size: number): boolean {
  for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) if (matrix[i * size + j] !== matrix[j * size + i]) return false;
  return true;
}

function scaleOf(caps: Float64Array): number {
  let max = 0;
  for (const c of caps) if (Number.isFinite(c) && c > max) max = c;
  return max > 0 ? 1 / max : 1;
}
