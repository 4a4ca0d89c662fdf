import { describe, expect, it } from 'vitest';
import { checkSolution } from '../../../bench/routing/checker.ts';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import type { PlanningOrder, PlanningProblem } from '../../../shared/planning/problem.ts';
import { bruteForce, lcg, planeProblem, type Point } from './instances.ts';

const solve = (problem: PlanningProblem, seed = 1, work = 300_000) => solveProblem(problem, { seconds: 120, seed, work });

/** Orders with 0-3 windows, skills, two load dimensions, on a 100 x 100 square. */
function mixedProblem(seed: number, n: number, objective: PlanningProblem['objective']): PlanningProblem {
  const rnd = lcg(seed);
  const orders = Array.from({ length: n }, (): Partial<PlanningOrder> & { at: Point } => {
    const count = Math.floor(rnd() * 4);
    const windows: Array<readonly [number, number]> = [];
    for (let w = 0, t = rnd() * 100; w < count; w++, t += 150 + rnd() * 100) windows.push([t, t + 60 + rnd() * 60]);
    return { at: [rnd() * 100, rnd() * 100], windows, service: 5, load: [1 + Math.floor(rnd() * 9), rnd() * 2], skills: rnd() < 0.2 ? ['cold'] : [] };
  });
  return planeProblem([50, 50], orders, [
    { shiftStart: 0, shiftEnd: 1000, capacity: [40, 8], skills: ['cold'], maxStops: 6 },
    { shiftStart: 0, shiftEnd: 700, capacity: [Infinity, Infinity] },
    { shiftStart: 200, shiftEnd: 1200, capacity: [60, Infinity], skills: ['cold', 'lift'] },
    { shiftStart: 100, shiftEnd: 900, capacity: [30, 6] },
    { shiftStart: 0, shiftEnd: 1200, capacity: [50, 10], maxStops: 8 },
  ], objective);
}

describe('the route optimizer', () => {
  for (const objective of ['distance', 'duration'] as const) {
    it(`returns routes the checker accepts, every order placed once (${objective}, windows, skills, two loads, unlimited capacity, shifts, maxStops)`, () => {
      for (const seed of [1, 2, 3]) {
        const problem = mixedProblem(seed, 40, objective);
        const solution = solve(problem, seed, 500_000);
        const report = checkSolution(problem, solution);
        expect(report.violations).toEqual([]);
        expect(report.served + solution.unassigned.length).toBe(40);
        expect(report.served).toBeGreaterThan(20);
        for (const route of solution.routes) expect(route.orders.length).toBeLessThanOrEqual(problem.vehicles[route.vehicle].maxStops);
      }
    });
  }

  it('serves an order in its second window when the first is out of reach', () => {
    const problem = planeProblem([0, 0], [{ at: [30, 0], windows: [[0, 10], [100, 120]], service: 5 }], [{ shiftStart: 0, shiftEnd: 500 }]);
    const solution = solve(problem);
    expect(solution.routes).toEqual([{ vehicle: 0, orders: [0] }]);
    expect(checkSolution(problem, solution).feasible).toBe(true);
  });

  it('puts an order needing a skill on the one vehicle that has it, and a heavy one on the unlimited vehicle', () => {
    const problem = planeProblem(
      [0, 0],
      [
        { at: [10, 0], skills: ['cold'] },
        { at: [-10, 0], load: [500, 0] },
      ],
      [{ capacity: [100, 100] }, { capacity: [100, 100], skills: ['cold'] }, { capacity: [Infinity, Infinity] }],
    );
    const solution = solve(problem);
    expect(solution.unassigned).toEqual([]);
    expect(solution.routes.find((r) => r.orders.includes(0))?.vehicle).toBe(1);
    expect(solution.routes.find((r) => r.orders.includes(1))?.vehicle).toBe(2);
  });

  it('gives a late order to the vehicle whose shift reaches it, and splits orders beyond maxStops', () => {
    const late = planeProblem([0, 0], [{ at: [10, 0], windows: [[800, 820]] }], [{ shiftStart: 0, shiftEnd: 500 }, { shiftStart: 400, shiftEnd: 1000 }]);
    expect(solve(late).routes).toEqual([{ vehicle: 1, orders: [0] }]);
    const crowded = planeProblem([0, 0], [{ at: [10, 0] }, { at: [11, 0] }, { at: [12, 0] }, { at: [13, 0] }], [{ maxStops: 2 }, { maxStops: 2 }]);
    const solution = solve(crowded);
    expect(solution.unassigned).toEqual([]);
    expect(solution.routes.map((r) => r.orders.length)).toEqual([2, 2]);
  });

  it('minimises total distance or total route time, as asked', () => {
    // One route A → B is shortest but waits ~490 at B; two routes wait nowhere.
    const orders = [
      { at: [10, 0] as Point, windows: [[0, 20] as const] },
      { at: [10, 1] as Point, windows: [[500, 520] as const] },
    ];
    const vehicles = [{ shiftStart: 0, shiftEnd: 1000 }, { shiftStart: 0, shiftEnd: 1000 }];
    const byDistance = solve(planeProblem([0, 0], orders, vehicles, 'distance'));
    expect(byDistance.routes).toHaveLength(1);
    const problem = planeProblem([0, 0], orders, vehicles, 'duration');
    const byDuration = solve(problem);
    expect(byDuration.routes).toHaveLength(2);
    expect(checkSolution(problem, byDuration).duration).toBeCloseTo(20 + 2 * Math.hypot(10, 1), 9);
  });

  it('gives the same routes for the same problem, seed and work budget, and spends that budget, not more', () => {
    for (const objective of ['distance', 'duration', 'vehicles'] as const) {
      const problem = mixedProblem(7, 60, objective);
      const first = solve(problem, 42, 400_000);
      const second = solve(problem, 42, 400_000);
      expect(second.routes).toEqual(first.routes);
      expect(second.unassigned).toEqual(first.unassigned);
      expect(second.stats.iterations).toBe(first.stats.iterations);
      expect(first.stats.stoppedBy).toBe('work');
      // The budget is checked between iterations: at most one iteration's work past it (the recreate and the local
      // search around it, a few tens of thousands of units here).
      expect(first.stats.work).toBeGreaterThanOrEqual(400_000);
      expect(first.stats.work).toBeLessThan(450_000);
      expect(solve(problem, 43, 400_000).routes).not.toEqual(first.routes);
    }
  });

  it('stops at the safety limit when the work budget is more than it allows, and says so', () => {
    const problem = mixedProblem(3, 60, 'distance');
    const solution = solveProblem(problem, { seconds: 1e-6, seed: 1, work: 1e12 });
    expect(solution.stats.stoppedBy).toBe('time');
    expect(solution.stats.work).toBeLessThan(1e12);
    expect(checkSolution(problem, solution).violations).toEqual([]);
  });

  it('under `vehicles`, serves with fewest routes before the shortest distance', () => {
    // A at 10 must be served by 12; one route A, B, C exists but is long; two routes {A, C} and {B} are shorter.
    const orders = [
      { at: [10, 0] as Point, windows: [[10, 12] as const] },
      { at: [-10, 0] as Point, windows: [[30, 50] as const] },
      { at: [10, 1] as Point, windows: [[40, 60] as const] },
    ];
    const vehicles = [{ shiftStart: 0, shiftEnd: 1000 }, { shiftStart: 0, shiftEnd: 1000 }];
    const byDistance = solve(planeProblem([0, 0], orders, vehicles, 'distance'));
    expect(byDistance.routes).toHaveLength(2);
    const problem = planeProblem([0, 0], orders, vehicles, 'vehicles');
    const byVehicles = solve(problem);
    expect(byVehicles.routes.map((r) => r.orders)).toEqual([[0, 1, 2]]);
    expect(checkSolution(problem, byVehicles).violations).toEqual([]);
  });

  it('claims no_room only for orders that fit in no final route: the last insertion pass has tried each', () => {
    for (const objective of ['distance', 'duration', 'vehicles'] as const) {
      // A budget far too small to place everything well: what is left out must still have no room.
      const problem = mixedProblem(11, 80, objective);
      const solution = solve(problem, 5, 3_000);
      const noRoom = solution.unassigned.filter((u) => u.codes.includes('no_room'));
      expect(noRoom.length, objective).toBeGreaterThan(0);
      const used = new Set(solution.routes.map((r) => r.vehicle));
      const routes = [...solution.routes, ...problem.vehicles.flatMap((_, vehicle) => (used.has(vehicle) ? [] : [{ vehicle, orders: [] as number[] }]))];
      for (const { order } of noRoom) {
        for (const route of routes) {
          for (let at = 0; at <= route.orders.length; at++) {
            const orders = [...route.orders.slice(0, at), order, ...route.orders.slice(at)];
            const fits = checkSolution(problem, {
              routes: [{ vehicle: route.vehicle, orders }],
              unassigned: problem.orders.map((_, o) => ({ order: o, codes: [] })).filter((u) => !orders.includes(u.order)),
            }).feasible;
            expect(fits, `${objective}: order ${order} fits in vehicle ${route.vehicle} at ${at}`).toBe(false);
          }
        }
      }
    }
  });

  it('finds the brute-force optimum of tiny instances, fewest unassigned first', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const rnd = lcg(seed * 101);
      const objective = seed % 2 ? 'distance' : 'duration';
      const orders = Array.from({ length: 7 }, (): Partial<PlanningOrder> & { at: Point } => {
        const t = rnd() * 150;
        // Several windows only under the distance objective: the optimizer's route time is exact for one window per order.
        const windows: Array<readonly [number, number]> =
          rnd() < 0.3 ? [] : objective === 'distance' && rnd() < 0.4 ? [[t, t + 30], [t + 120, t + 160]] : [[t, t + 40 + rnd() * 40]];
        return { at: [rnd() * 60, rnd() * 60], windows, service: 3, load: [1 + Math.floor(rnd() * 4), rnd()], skills: rnd() < 0.25 ? ['cold'] : [] };
      });
      // Seeds 5 and 6: too little fleet for every order.
      const vehicles = [
        { shiftStart: 0, shiftEnd: seed >= 5 ? 150 : 400, capacity: [8, Infinity] as const, skills: ['cold'], maxStops: seed >= 5 ? 2 : 5 },
        { shiftStart: 30, shiftEnd: 300, capacity: [Infinity, 2] as const, maxStops: 4 },
      ];
      const problem = planeProblem([30, 30], orders, vehicles, objective);
      const optimum = bruteForce(problem);
      const solution = solve(problem, seed, 300_000);
      const report = checkSolution(problem, solution);
      expect(report.violations).toEqual([]);
      expect(solution.unassigned.length, `seed ${seed}`).toBe(optimum.unassigned);
      expect(objective === 'distance' ? report.distance : report.duration, `seed ${seed}`).toBeCloseTo(optimum.cost, 6);
    }
  });
});
