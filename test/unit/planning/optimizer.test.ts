import { describe, expect, it } from 'vitest';
import { checkSolution } from '../../../bench/routing/checker.ts';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import type { PlanningOrder, PlanningProblem } from '../../../shared/planning/problem.ts';
import { bruteForce, lcg, planeProblem, type Point } from './instances.ts';

const solve = (problem: PlanningProblem, seed = 1, iterations = 3000) => solveProblem(problem, { seconds: 120, seed, iterations });

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
        const solution = solve(problem, seed, 1500);
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

  it('gives the same routes for the same problem, seed and iteration cap', () => {
    const problem = mixedProblem(7, 60, 'distance');
    const first = solve(problem, 42, 400);
    const second = solve(problem, 42, 400);
    expect(second.routes).toEqual(first.routes);
    expect(second.unassigned).toEqual(first.unassigned);
    expect(second.stats.iterations).toBe(400);
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
      const solution = solve(problem, seed, 2000);
      const report = checkSolution(problem, solution);
      expect(report.violations).toEqual([]);
      expect(solution.unassigned.length, `seed ${seed}`).toBe(optimum.unassigned);
      expect(objective === 'distance' ? report.distance : report.duration, `seed ${seed}`).toBeCloseTo(optimum.cost, 6);
    }
  });
});
