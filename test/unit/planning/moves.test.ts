import { describe, expect, it } from 'vitest';
import { checkSolution, routeCost } from '../../../bench/routing/checker.ts';
import { penalties } from '../../../shared/planning/optimizer/cost.ts';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import { localSearch } from '../../../shared/planning/optimizer/local-search.ts';
import { compileModel } from '../../../shared/planning/optimizer/model.ts';
import { exchange } from '../../../shared/planning/optimizer/moves/exchange.ts';
import type { Move } from '../../../shared/planning/optimizer/moves/move.ts';
import { orOpt } from '../../../shared/planning/optimizer/moves/or-opt.ts';
import { relocate } from '../../../shared/planning/optimizer/moves/relocate.ts';
import { swapTails } from '../../../shared/planning/optimizer/moves/swap-tails.ts';
import { swap } from '../../../shared/planning/optimizer/moves/swap.ts';
import { twoOpt } from '../../../shared/planning/optimizer/moves/two-opt.ts';
import { Rng } from '../../../shared/planning/optimizer/rng.ts';
import { Solution } from '../../../shared/planning/optimizer/solution.ts';
import { Work } from '../../../shared/planning/optimizer/work.ts';
import type { PlanningOrder, PlanningProblem } from '../../../shared/planning/problem.ts';
import { lcg, planeProblem, type Point } from './instances.ts';

/** A solution of `problem` holding `routes` (per vehicle, order indexes), with its own meter. */
function solutionOf(problem: PlanningProblem, routes: number[][]) {
  const m = compileModel(problem);
  const meter = { work: 0 };
  const s = new Solution(m, meter);
  s.load(routes.map((r) => r.map((o) => o + 1)));
  return { m, meter, s, w: new Work(m, meter), p: penalties(m) };
}

const asPlan = (s: Solution) => ({
  routes: s.snapshot().flatMap((stops, vehicle) => (stops.length ? [{ vehicle, orders: stops.map((c) => c - 1) }] : [])),
  unassigned: Array.from(s.unassigned.subarray(0, s.unCount)).map((c) => ({ order: c - 1, codes: [] })),
});

const distanceOf = (problem: PlanningProblem, s: Solution) => asPlan(s).routes.reduce((sum, r) => sum + routeCost(problem, r.vehicle, r.orders).distance, 0);

describe('the local search moves', () => {
  it('relocate moves a customer to the route it lies beside, by the delta it priced', () => {
    // Order 2 sits among vehicle 1's orders but is served by vehicle 0.
    const problem = planeProblem([0, 0], [{ at: [0, 50] }, { at: [0, 52] }, { at: [50, 1] }, { at: [50, 0] }, { at: [50, 3] }], [{}, {}]);
    const { s, w, p, meter } = solutionOf(problem, [[0, 1, 2], [3, 4]]);
    const before = distanceOf(problem, s);
    const delta = relocate(1).evaluate(s, 3, 1, 1, p);
    expect(delta).toBeLessThan(-50);
    relocate(1).apply(s, 3, 1, 1, w);
    expect(s.snapshot()[1]).toEqual([4, 3, 5]);
    expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
    expect(meter.work).toBeGreaterThan(0);
  });

  it('relocate refuses a position whose window or load the move would break', () => {
    const late = planeProblem([0, 0], [{ at: [0, 50] }, { at: [50, 1], windows: [[0, 52]] }, { at: [50, 0] }, { at: [50, 3] }], [{}, {}]);
    const { s, p } = solutionOf(late, [[1, 0], [2, 3]]);
    // First in vehicle 1's route it fits; after orders 2 and 3 it would arrive at 55, past its window's close.
    expect(relocate(1).evaluate(s, 2, 1, 0, p)).toBeLessThan(0);
    expect(relocate(1).evaluate(s, 2, 1, 2, p)).toBe(Infinity);
    const heavy = planeProblem([0, 0], [{ at: [0, 50] }, { at: [50, 1], load: [6, 0] }, { at: [50, 0], load: [5, 0] }], [{ capacity: [10, 10] }, { capacity: [10, 10] }]);
    const loaded = solutionOf(heavy, [[0, 1], [2]]);
    expect(relocate(1).evaluate(loaded.s, 2, 1, 1, loaded.p)).toBe(Infinity);
  });

  it('relocate of two moves a customer and the one after it together, and frees an emptied route under `vehicles`', () => {
    const problem = planeProblem([0, 0], [{ at: [50, 2] }, { at: [50, 4] }, { at: [50, 0] }], [{}, {}], 'vehicles');
    const { s, w, p } = solutionOf(problem, [[0, 1], [2]]);
    const delta = relocate(2).evaluate(s, 1, 1, 1, p);
    expect(delta).toBeLessThan(-p.route + 1);
    relocate(2).apply(s, 1, 1, 1, w);
    expect(s.snapshot()).toEqual([[], [3, 1, 2]]);
  });

  it('swap trades two customers each lying beside the other route', () => {
    const problem = planeProblem([0, 0], [{ at: [0, 50] }, { at: [50, 2] }, { at: [50, 0] }, { at: [0, 52] }], [{}, {}]);
    const { s, w, p } = solutionOf(problem, [[0, 1], [2, 3]]);
    const before = distanceOf(problem, s);
    const delta = swap.evaluate(s, 2, 1, 2, p);
    expect(delta).toBeLessThan(-100);
    swap.apply(s, 2, 1, 2, w);
    expect(s.snapshot()).toEqual([[1, 4], [3, 2]]);
    expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
  });

  it('2-opt* swaps the tails of two crossing routes, only between vehicles alike', () => {
    const orders = [{ at: [10, 0] }, { at: [20, 0] }, { at: [0, 30] }, { at: [0, 10] }, { at: [0, 20] }, { at: [30, 0] }] as Array<{ at: Point }>;
    const { s, w, p } = solutionOf(planeProblem([0, 0], orders, [{}, {}]), [[0, 1, 2], [3, 4, 5]]);
    expect(swapTails.evaluate(s, 2, 1, 2, p)).toBeLessThan(-20);
    swapTails.apply(s, 2, 1, 2, w);
    expect(s.snapshot()).toEqual([[1, 2, 6], [4, 5, 3]]);
    const unlike = solutionOf(planeProblem([0, 0], orders, [{}, { shiftEnd: 5000 }]), [[0, 1, 2], [3, 4, 5]]);
    expect(swapTails.evaluate(unlike.s, 2, 1, 2, unlike.p)).toBe(Infinity);
  });

  it('exchange trades two neighbours of one route for a stop of another, and refuses what a load forbids', () => {
    const orders = [{ at: [50, 0] }, { at: [0, 50] }, { at: [0, 52] }, { at: [0, 48] }, { at: [50, 2] }] as Array<Partial<PlanningOrder> & { at: Point }>;
    const problem = planeProblem([0, 0], orders, [{}, {}]);
    const { s, w, p } = solutionOf(problem, [[0, 1, 2], [3, 4]]);
    const before = distanceOf(problem, s);
    const delta = exchange(2, 1).evaluate(s, 2, 1, 2, p);
    expect(delta).toBeLessThan(-100);
    exchange(2, 1).apply(s, 2, 1, 2, w);
    expect(s.snapshot()).toEqual([[1, 5], [4, 2, 3]]);
    expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
    const loaded = orders.map((o, i) => ({ ...o, load: [i === 1 || i === 2 ? 4 : 1, 0] as [number, number] }));
    const tight = solutionOf(planeProblem([0, 0], loaded, [{ capacity: [10, 10] }, { capacity: [7, 10] }]), [[0, 1, 2], [3, 4]]);
    // Vehicle 1 would carry 1 + 4 + 4 = 9 of its 7.
    expect(exchange(2, 1).evaluate(tight.s, 2, 1, 2, tight.p)).toBe(Infinity);
  });

  it('or-opt moves a stop, or a run of stops, to its place within its own route', () => {
    // Along one street: vehicle 0 serves 10, 30, 20, 40 and drives back over 30 to reach 20.
    const problem = planeProblem([0, 0], [{ at: [10, 0] }, { at: [30, 0] }, { at: [20, 0] }, { at: [40, 0] }], [{}]);
    const { s, w, p } = solutionOf(problem, [[0, 1, 2, 3]]);
    const before = distanceOf(problem, s);
    const delta = orOpt(1).evaluate(s, 3, 0, 1, p);
    expect(delta).toBeCloseTo(-20, 6);
    orOpt(1).apply(s, 3, 0, 1, w);
    expect(s.snapshot()).toEqual([[1, 3, 2, 4]]);
    expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
    // Only within u's route: another route's position is the inter-route moves' business.
    expect(orOpt(1).evaluate(s, 3, 1, 1, p)).toBe(Infinity);
    const run = solutionOf(problem, [[2, 3, 0, 1]]);
    // 20, 40, 10, 30: 10 and 30 moved, in order, to the front.
    expect(orOpt(2).evaluate(run.s, 1, 0, 0, run.p)).toBeCloseTo(-20, 6);
    orOpt(2).apply(run.s, 1, 0, 0, run.w);
    expect(run.s.snapshot()).toEqual([[1, 2, 3, 4]]);
  });

  it('or-opt refuses a better sequence that breaks a window later in the route', () => {
    // (30, 0) must be served by 31: the shorter sequence through (20, 5) first reaches it at 32.4.
    const orders = [{ at: [10, 0] }, { at: [30, 0], windows: [[0, 31]] }, { at: [20, 5] }, { at: [40, 0] }] as Array<Partial<PlanningOrder> & { at: Point }>;
    const { s, p } = solutionOf(planeProblem([0, 0], orders, [{}]), [[0, 1, 2, 3]]);
    expect(orOpt(1).evaluate(s, 3, 0, 1, p)).toBe(Infinity);
    const open = solutionOf(planeProblem([0, 0], orders.map((o) => ({ at: o.at })), [{}]), [[0, 1, 2, 3]]);
    expect(open.s.m.symmetric).toBe(true);
    expect(orOpt(1).evaluate(open.s, 3, 0, 1, open.p)).toBeLessThan(-15);
  });

  it('2-opt uncrosses a route, also on a matrix that is not symmetric', () => {
    // (10, 0), (0, 10), (10, 10) from the depot at (0, 0): the route crosses itself.
    const orders = [{ at: [10, 0] }, { at: [0, 10] }, { at: [10, 10] }] as Array<{ at: Point }>;
    const problem = planeProblem([0, 0], orders, [{}]);
    const { s, w, p } = solutionOf(problem, [[0, 1, 2]]);
    const before = distanceOf(problem, s);
    const delta = twoOpt.evaluate(s, 1, 0, 3, p);
    expect(delta).toBeLessThan(-5);
    twoOpt.apply(s, 1, 0, 3, w);
    expect(s.snapshot()).toEqual([[1, 3, 2]]);
    expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
    // One way costs more than the other: the reversed stretch's arcs are priced in their new direction.
    const oneWay = planeProblem([0, 0], orders, [{}]);
    const size = 4;
    const distance = Float64Array.from(oneWay.distance);
    distance[3 * size + 2] += 100;
    const skewed = solutionOf({ ...oneWay, distance }, [[0, 1, 2]]);
    expect(skewed.m.symmetric).toBe(false);
    expect(twoOpt.evaluate(skewed.s, 1, 0, 3, skewed.p)).toBeCloseTo(delta + 100, 6);
  });

  it('never makes a move the checker rejects, and each made move changes the distance by its delta', () => {
    const moves: Move[] = [relocate(1), relocate(2), swap, exchange(2, 1), exchange(2, 2), swapTails, orOpt(1), orOpt(2), orOpt(3), twoOpt];
    for (const seed of [1, 2, 3, 4]) {
      // Seed 4 on a matrix that is not symmetric, where reversing a stretch changes its own arcs.
      const problem = windowedProblem(seed, 30, seed === 4);
      const start = solveProblem(problem, { seconds: 60, seed, work: 1 });
      const routes = problem.vehicles.map((_, v) => start.routes.find((r) => r.vehicle === v)?.orders ?? []);
      const { s, w, p, m } = solutionOf(problem, routes);
      let made = 0;
      for (let u = 1; u <= m.n; u++) {
        for (let rv = 0; rv < m.vehicles; rv++) {
          for (let j = 0; j <= s.len[rv]; j++) {
            for (const move of moves) {
              if (s.routeOf[u] < 0 || j > s.len[rv]) continue;
              const before = distanceOf(problem, s);
              const delta = move.evaluate(s, u, rv, j, p);
              if (!(delta < 0)) continue;
              move.apply(s, u, rv, j, w);
              made++;
              expect(checkSolution(problem, asPlan(s)).violations).toEqual([]);
              expect(distanceOf(problem, s)).toBeCloseTo(before + delta, 6);
            }
          }
        }
      }
      expect(made).toBeGreaterThan(0);
    }
  });
});

describe('the local search', () => {
  it('improves a poor solution to a feasible one, counts its work, and gives the same routes for the same seed', () => {
    const problem = windowedProblem(5, 60);
    const start = solveProblem(problem, { seconds: 60, seed: 1, work: 5_000 });
    const routes = problem.vehicles.map((_, v) => start.routes.find((r) => r.vehicle === v)?.orders ?? []);
    const runs = [1, 1, 2].map((seed) => {
      const { s, w, p, meter, m } = solutionOf(problem, routes);
      const all = new Int32Array(m.vehicles).map((_, r) => r);
      const before = distanceOf(problem, s);
      const work0 = meter.work;
      const change = localSearch(s, new Rng(seed), w, p, all, all.length);
      expect(change).toBeLessThan(0);
      expect(distanceOf(problem, s)).toBeCloseTo(before + change, 6);
      expect(checkSolution(problem, asPlan(s)).violations).toEqual([]);
      expect(meter.work).toBeGreaterThan(work0 + m.n);
      return s.snapshot();
    });
    expect(runs[1]).toEqual(runs[0]);
  });
});

/** Orders with tight windows, loads and service times; two vehicle kinds (2-opt* only within a kind). */
function windowedProblem(seed: number, n: number, asymmetric = false): PlanningProblem {
  const rnd = lcg(seed);
  const orders = Array.from({ length: n }, (): Partial<PlanningOrder> & { at: Point } => {
    const open = rnd() * 300;
    return { at: [rnd() * 100, rnd() * 100], windows: [[open, open + 40 + rnd() * 80]], service: 5, load: [1 + Math.floor(rnd() * 9), 0] };
  });
  const vehicle = { shiftStart: 0, shiftEnd: 600, capacity: [40, Infinity] as [number, number] };
  const problem = planeProblem([50, 50], orders, [vehicle, vehicle, vehicle, vehicle, { ...vehicle, shiftEnd: 500 }, { ...vehicle, shiftEnd: 500 }, vehicle, vehicle]);
  if (!asymmetric) return problem;
  // Longer one way than the other (one-way streets), travel times unchanged.
  const size = n + 1;
  const distance = Float64Array.from(problem.distance);
  for (let i = 0; i < size; i++) for (let j = i + 1; j < size; j++) distance[i * size + j] *= 1 + rnd() * 0.5;
  return { ...problem, distance };
}
