import { travelMatrices, type Point } from './travel.ts';

/**
 * Re-ordering the open stops of a route under way (decisions 17): one vehicle, already on the
 * road at `start` at `startTime`, no depot and no way back. The order is judged lexicographically:
 * first the most stops served within a window, then the earliest end of service of the last stop.
 * A stop that cannot be served within a window in the order found goes after the others, `late`,
 * served on arrival.
 *
 * A permutation of the stops is read by one pass ("decoding"): each stop in turn is served within
 * the first window still open on arrival, or, if none is, set aside as late; the late ones follow
 * in the permutation's order. Every permutation is thus an answer, and an optimal answer is the
 * decoding of some permutation (its on-time stops, then its late ones). Up to EXACT_MAX_STOPS
 * every permutation is tried (exact); beyond, the best of three starting orders improves by
 * seeded local search (or-opt of 1-3 stops and 2-opt towards a stop's nearest neighbours,
 * accepting moves that are no worse), bounded by work (stops simulated), not by time, so the same
 * input and seed give the same order on any machine.
 */
export interface ResequenceStop extends Point {
  /** Windows in which service may start, ascending and disjoint, `[from, to]` inclusive; empty: any time. */
  windows: ReadonlyArray<readonly [number, number]>;
  /** Seconds spent at the stop. */
  service: number;
}

export interface ResequenceProblem {
  start: Point;
  /** Seconds (from the service date's midnight, as the windows) when the vehicle is at `start`. */
  startTime: number;
  /** The open stops in their current order (ties keep it). */
  stops: readonly ResequenceStop[];
  speedKmh: number;
  seed: number;
  /** The work bound: stop visits simulated by the local search (default DEFAULT_MAX_STEPS). */
  maxSteps?: number;
  /** Every order is tried up to this many stops (default EXACT_MAX_STOPS; tests lower it to check the search). */
  exactUpTo?: number;
}

export interface ResequencedStop {
  /** Index into `problem.stops`. */
  stop: number;
  arrival: number;
  serviceStart: number;
  late: boolean;
}

export interface ResequenceResult {
  stops: ResequencedStop[];
  lateCount: number;
  /** End of service of the last stop. */
  end: number;
  /** Stop visits simulated (the work done), and whether every order was tried. */
  steps: number;
  exact: boolean;
}

/** 8! = 40,320 orders of 8 stops, 0.3 M stop visits: about 10 ms, far less than the search's bound. */
export const EXACT_MAX_STOPS = 8;
/** 0.2-0.45 s of CPU at 300 stops on the shared machine (docs/performance.md, "Resequencing a route"), within the 2 s of decisions 17. */
export const DEFAULT_MAX_STEPS = 12_000_000;
const NEIGHBOURS = 10;

/** mulberry32: a small seeded generator, so nothing here reads Math.random. */
const generator = (seed: number) => {
  let s = seed >>> 0;
  return (bound: number): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (((z ^ (z >>> 14)) >>> 0) % bound) >>> 0;
  };
};

/** The start of service on arriving at `arrival`: in the first window still open, or -1 if none is. */
const serviceStartAt = (windows: ResequenceStop['windows'], arrival: number): number => {
  if (windows.length === 0) return arrival;
  for (const [from, to] of windows) if (arrival <= to) return Math.max(arrival, from);
  return -1;
};

interface Model {
  n: number;
  /** Seconds between locations; location 0 is the start, stop i is location i + 1. */
  duration: Float64Array;
  stops: readonly ResequenceStop[];
  startTime: number;
}

interface Cost {
  late: number;
  end: number;
}

const better = (a: Cost, b: Cost): boolean => a.late < b.late || (a.late === b.late && a.end < b.end);
const noWorse = (a: Cost, b: Cost): boolean => a.late < b.late || (a.late === b.late && a.end <= b.end);

/**
 * A permutation and its decoding kept position by position, so that a move changing positions
 * from `i` on is judged by simulating from `i` only: `time[k]`, `at[k]` and `lateBefore[k]` are
 * the state before position k; `lateStops` the late stops in permutation order.
 */
class Decoded {
  readonly perm: Int32Array;
  readonly time: Float64Array;
  readonly at: Int32Array;
  readonly lateBefore: Int32Array;
  readonly lateStops: Int32Array;
  cost: Cost = { late: 0, end: 0 };

  constructor(
    private readonly model: Model,
    perm: ArrayLike<number>,
  ) {
    const n = model.n;
    this.perm = Int32Array.from(perm);
    this.time = new Float64Array(n + 1);
    this.at = new Int32Array(n + 1);
    this.lateBefore = new Int32Array(n + 1);
    this.lateStops = new Int32Array(n);
    this.time[0] = model.startTime;
    this.refresh(0);
  }

  /** Recomputes the state from position `from` on (the permutation changed there). */
  refresh(from: number): void {
    const { duration, stops, n } = this.model;
    const size = n + 1;
    let t = this.time[from];
    let at = this.at[from];
    let late = this.lateBefore[from];
    for (let k = from; k < n; k++) {
      const s = this.perm[k];
      const start = serviceStartAt(stops[s].windows, t + duration[at * size + s + 1]);
      if (start < 0) this.lateStops[late++] = s;
      else {
        t = start + stops[s].service;
        at = s + 1;
      }
      this.time[k + 1] = t;
      this.at[k + 1] = at;
      this.lateBefore[k + 1] = late;
    }
    this.cost = { late, end: tailEnd(this.model, t, at, this.lateStops, late) };
  }
}

/** The late stops served on arrival after the others, in order. */
const tailEnd = (model: Model, t: number, at: number, late: ArrayLike<number>, count: number): number => {
  const size = model.n + 1;
  for (let k = 0; k < count; k++) {
    const s = late[k];
    t += model.duration[at * size + s + 1] + model.stops[s].service;
    at = s + 1;
  }
  return t;
};

/** The cost of `candidate`, equal to `current.perm` before position `from`; `scratch` receives the late stops. */
const costOf = (model: Model, current: Decoded, candidate: Int32Array, from: number, scratch: Int32Array): Cost => {
  const { duration, stops, n } = model;
  const size = n + 1;
  let t = current.time[from];
  let at = current.at[from];
  let late = current.lateBefore[from];
  scratch.set(current.lateStops.subarray(0, late));
  for (let k = from; k < n; k++) {
    const s = candidate[k];
    const start = serviceStartAt(stops[s].windows, t + duration[at * size + s + 1]);
    if (start < 0) scratch[late++] = s;
    else {
      t = start + stops[s].service;
      at = s + 1;
    }
  }
  return { late, end: tailEnd(model, t, at, scratch, late) };
};

/** The cost of a whole order, allocating nothing (`late` is scratch). */
const costOfOrder = (model: Model, perm: Int32Array, late: Int32Array): Cost => {
  const { duration, stops, n } = model;
  const size = n + 1;
  let t = model.startTime;
  let at = 0;
  let count = 0;
  for (let k = 0; k < n; k++) {
    const s = perm[k];
    const start = serviceStartAt(stops[s].windows, t + duration[at * size + s + 1]);
    if (start < 0) late[count++] = s;
    else {
      t = start + stops[s].service;
      at = s + 1;
    }
  }
  return { late: count, end: tailEnd(model, t, at, late, count) };
};

/** Every order of up to EXACT_MAX_STOPS stops (Heap's algorithm); the first best in enumeration order wins. */
const exhaustive = (model: Model): { perm: Int32Array; steps: number } => {
  const n = model.n;
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  let best = Int32Array.from(perm);
  const late = new Int32Array(n);
  let bestCost = costOfOrder(model, perm, late);
  let steps = n;
  const c = new Int32Array(n);
  let i = 0;
  while (i < n) {
    if (c[i] < i) {
      const j = i % 2 === 0 ? 0 : c[i];
      [perm[j], perm[i]] = [perm[i], perm[j]];
      const cost = costOfOrder(model, perm, late);
      steps += n;
      if (better(cost, bestCost)) {
        bestCost = cost;
        best = Int32Array.from(perm);
      }
      c[i]++;
      i = 0;
    } else {
      c[i] = 0;
      i++;
    }
  }
  return { perm: best, steps };
};

/** Nearest neighbour by travel time from the start: the floor the benchmark compares with. */
export const nearestNeighbourOrder = (model: Pick<Model, 'n' | 'duration'>): number[] => {
  const size = model.n + 1;
  const left = new Set(Array.from({ length: model.n }, (_, i) => i));
  const order: number[] = [];
  let at = 0;
  while (left.size > 0) {
    let next = -1;
    for (const s of left) if (next < 0 || model.duration[at * size + s + 1] < model.duration[at * size + next + 1]) next = s;
    order.push(next);
    left.delete(next);
    at = next + 1;
  }
  return order;
};

/** Each stop's nearest stops by travel time (ties by index), for the local search's moves. */
const neighbourLists = (model: Model): Int32Array[] => {
  const size = model.n + 1;
  return Array.from({ length: model.n }, (_, s) => {
    const others = Array.from({ length: model.n }, (_, o) => o).filter((o) => o !== s);
    others.sort((a, b) => model.duration[(s + 1) * size + a + 1] - model.duration[(s + 1) * size + b + 1] || a - b);
    return Int32Array.from(others.slice(0, NEIGHBOURS));
  });
};

/** Or-opt: the segment [i, i + len) moved to just after position j (j outside it). Returns the first changed position. */
const orOpt = (perm: Int32Array, out: Int32Array, i: number, len: number, j: number): number => {
  const n = perm.length;
  let w = 0;
  const seg = perm.subarray(i, i + len);
  for (let k = 0; k < n; k++) {
    if (k >= i && k < i + len) continue;
    out[w++] = perm[k];
    if (k === j) for (const s of seg) out[w++] = s;
  }
  if (j < 0) {
    out.copyWithin(len, 0, n - len);
    out.set(seg, 0);
  }
  return Math.min(i, j + 1);
};

/** 2-opt: the positions [i, j] reversed. */
const twoOpt = (perm: Int32Array, out: Int32Array, i: number, j: number): number => {
  out.set(perm);
  for (let a = i, b = j; a < b; a++, b--) [out[a], out[b]] = [out[b], out[a]];
  return i;
};

const localSearch = (model: Model, initial: Int32Array, seed: number, maxSteps: number): { perm: Int32Array; steps: number } => {
  const n = model.n;
  const random = generator(seed);
  const neighbours = neighbourLists(model);
  const current = new Decoded(model, initial);
  const position = new Int32Array(n);
  const place = () => current.perm.forEach((s, k) => (position[s] = k));
  place();
  const candidate = new Int32Array(n);
  const scratch = new Int32Array(n);
  let steps = 0;
  while (steps < maxSteps) {
    // A move skipped below counts too, so that the bound is reached whatever the route.
    steps++;
    const i = random(n);
    const near = position[neighbours[current.perm[i]][random(Math.min(NEIGHBOURS, n - 1))]];
    let from: number;
    if (random(2) === 0) {
      // Or-opt: 1-3 stops from i placed right after (or before) a near stop.
      const len = Math.min(1 + random(3), n - i);
      if (near >= i && near < i + len) continue;
      const j = random(2) === 0 ? near : near - 1;
      if (j >= i - 1 && j < i + len) continue;
      from = orOpt(current.perm, candidate, i, len, j);
    } else {
      // 2-opt: the stop at i made to follow its near stop (or precede it) by reversing what lies between.
      const [a, b] = near < i ? [near + 1, i] : [i, near - 1];
      if (b <= a) continue;
      from = twoOpt(current.perm, candidate, a, b);
    }
    steps += n - from + current.cost.late;
    const cost = costOf(model, current, candidate, from, scratch);
    if (noWorse(cost, current.cost)) {
      current.perm.set(candidate.subarray(from), from);
      current.refresh(from);
      place();
    }
  }
  return { perm: current.perm, steps };
};

/** The earliest window close first (no window: last); ties keep the current order. */
const deadlineOrder = (stops: readonly ResequenceStop[]): number[] =>
  stops
    .map((s, i) => ({ i, close: s.windows.length > 0 ? s.windows[s.windows.length - 1][1] : Infinity }))
    .sort((a, b) => a.close - b.close || a.i - b.i)
    .map((x) => x.i);

export const resequence = (problem: ResequenceProblem): ResequenceResult => {
  const n = problem.stops.length;
  const { duration } = travelMatrices([problem.start, ...problem.stops], problem.speedKmh);
  const model: Model = { n, duration, stops: problem.stops, startTime: problem.startTime };
  let found: { perm: Int32Array; steps: number };
  const exact = n <= (problem.exactUpTo ?? EXACT_MAX_STOPS);
  if (exact) found = exhaustive(model);
  else {
    const starts = [Array.from({ length: n }, (_, i) => i), nearestNeighbourOrder(model), deadlineOrder(problem.stops)].map((p) => new Decoded(model, p));
    const first = starts.reduce((best, d) => (better(d.cost, best.cost) ? d : best));
    found = localSearch(model, first.perm, problem.seed, problem.maxSteps ?? DEFAULT_MAX_STEPS);
  }
  return { ...schedule(model, found.perm), steps: found.steps, exact };
};

/** The decoded order with its times: the on-time stops, then the late ones served on arrival. */
const schedule = (model: Model, perm: Int32Array): Omit<ResequenceResult, 'steps' | 'exact'> => {
  const size = model.n + 1;
  const onTime: ResequencedStop[] = [];
  const late: number[] = [];
  let t = model.startTime;
  let at = 0;
  for (const s of perm) {
    const arrival = t + model.duration[at * size + s + 1];
    const start = serviceStartAt(model.stops[s].windows, arrival);
    if (start < 0) {
      late.push(s);
      continue;
    }
    onTime.push({ stop: s, arrival, serviceStart: start, late: false });
    t = start + model.stops[s].service;
    at = s + 1;
  }
  const tail: ResequencedStop[] = [];
  for (const s of late) {
    const arrival = t + model.duration[at * size + s + 1];
    tail.push({ stop: s, arrival, serviceStart: arrival, late: true });
    t = arrival + model.stops[s].service;
    at = s + 1;
  }
  return { stops: [...onTime, ...tail], lateCount: late.length, end: t };
};

/** The decoding of one given order (the benchmark's floor): its late count and end, with the same travel model. */
export const decodeOrder = (problem: Omit<ResequenceProblem, 'seed'>, order: readonly number[]): Omit<ResequenceResult, 'steps' | 'exact'> => {
  const { duration } = travelMatrices([problem.start, ...problem.stops], problem.speedKmh);
  return schedule({ n: problem.stops.length, duration, stops: problem.stops, startTime: problem.startTime }, Int32Array.from(order));
};

/** Nearest neighbour by travel time from the start, as `problem.stops` indices. */
export const nearestNeighbour = (problem: Pick<ResequenceProblem, 'start' | 'stops' | 'speedKmh'>): number[] =>
  nearestNeighbourOrder({ n: problem.stops.length, duration: travelMatrices([problem.start, ...problem.stops], problem.speedKmh).duration });

/** A 32-bit seed from text (FNV-1a): the route and the request's minute (decisions 17). */
export const seedOf = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};
