import { describe, expect, it } from 'vitest';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import { unassignedReasons } from '../../../shared/planning/reasons.ts';
import { planeProblem } from './instances.ts';

const fleet = [
  { shiftStart: 0, shiftEnd: 100, capacity: [10, 1] as const, skills: ['cold'] },
  { shiftStart: 0, shiftEnd: 300, capacity: [20, 2] as const, skills: ['lift'] },
  { shiftStart: 50, shiftEnd: 300, capacity: [Infinity, Infinity] as const },
];
const solve = (problem: ReturnType<typeof planeProblem>) => solveProblem(problem, { seconds: 60, seed: 1, work: 30_000 });

describe('unassigned reasons', () => {
  it('skills_missing: no vehicle has every skill of the order', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], skills: ['cold', 'lift'] }], fleet);
    expect(unassignedReasons(problem, 0)).toEqual({ codes: ['skills_missing'], ruledOut: { skills_missing: [0, 1, 2] }, noStops: [], vehicleCount: 3 });
    expect(solve(problem).unassigned).toEqual([{ order: 0, codes: ['skills_missing'] }]);
  });

  it('capacity_exceeded: the load exceeds every vehicle in some dimension', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], load: [5, 3] }], fleet.slice(0, 2));
    expect(unassignedReasons(problem, 0)).toEqual({ codes: ['capacity_exceeded'], ruledOut: { capacity_exceeded: [0, 1] }, noStops: [], vehicleCount: 2 });
    expect(solve(problem).unassigned).toEqual([{ order: 0, codes: ['capacity_exceeded'] }]);
  });

  it('time_window_unreachable: no vehicle reaches a window and gets back within its shift', () => {
    // Window [5, 8] at distance 10: nobody arrives in time. The second window ends too late to get back.
    const problem = planeProblem([0, 0], [{ at: [10, 0], windows: [[5, 8], [295, 299]] }], fleet);
    expect(unassignedReasons(problem, 0)).toEqual({ codes: ['time_window_unreachable'], ruledOut: { time_window_unreachable: [0, 1, 2] }, noStops: [], vehicleCount: 3 });
    expect(solve(problem).unassigned).toEqual([{ order: 0, codes: ['time_window_unreachable'] }]);
  });

  it('no_vehicle_fits when no single code holds for all, with the vehicles each code rules out (decisions 18)', () => {
    // Vehicle 0 lacks 'lift'; vehicle 1 is too small; vehicle 2 starts too late for the window.
    const problem = planeProblem([0, 0], [{ at: [10, 0], skills: ['lift'], load: [30, 0], windows: [[10, 40]] }], fleet);
    const reasons = unassignedReasons(problem, 0);
    expect(reasons.codes).toEqual(['no_vehicle_fits']);
    expect(reasons.ruledOut).toEqual({ skills_missing: [0, 2], capacity_exceeded: [0, 1], time_window_unreachable: [2] });
    expect(solve(problem).unassigned).toEqual([{ order: 0, codes: reasons.codes }]);
  });

  it('no_room: an order that fits alone but not beside the others', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0] }, { at: [10, 1] }, { at: [50, 50] }], [{ maxStops: 2 }]);
    const solution = solve(problem);
    expect(solution.routes).toEqual([{ vehicle: 0, orders: expect.arrayContaining([0, 1]) }]);
    expect(solution.unassigned).toEqual([{ order: 2, codes: ['no_room'] }]);
    expect(unassignedReasons(problem, 2)).toEqual({ codes: ['no_room'], ruledOut: {}, noStops: [], vehicleCount: 1 });
  });
});

describe('a fleet of no vehicles', () => {
  it('leaves every order unassigned and claims no reason it cannot back', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0] }], []);
    expect(solve(problem)).toMatchObject({ routes: [], unassigned: [{ order: 0, codes: [] }] });
  });
});
