import { describe, expect, it } from 'vitest';
import { checkSolution } from '../../../bench/routing/checker.ts';
import { planeProblem } from './instances.ts';

/** Three orders east, north-east and north of the depot; one vehicle that can serve all. */
const base = () =>
  planeProblem(
    [0, 0],
    [
      { at: [10, 0], windows: [[0, 15]], service: 1, load: [3, 1] },
      { at: [10, 10], windows: [[0, 5], [20, 40]], service: 1, load: [3, 1] },
      { at: [0, 10], service: 1, load: [3, 1], skills: ['cold'] },
    ],
    [{ shiftStart: 0, shiftEnd: 60, capacity: [10, 3], skills: ['cold'], maxStops: 3 }],
  );
const served = { routes: [{ vehicle: 0, orders: [0, 1, 2] }], unassigned: [] };

describe('the independent checker', () => {
  it('accepts a feasible route and measures it', () => {
    const report = checkSolution(base(), served);
    expect(report.violations).toEqual([]);
    expect(report.feasible).toBe(true);
    expect(report.distance).toBeCloseTo(40, 9);
    // Leaves at 0: order 1 is reached at 21, in its second window; back at 43.
    expect(report.duration).toBeCloseTo(43, 9);
  });

  it('rejects a stop reached after its windows close', () => {
    const report = checkSolution(base(), { routes: [{ vehicle: 0, orders: [2, 1, 0] }], unassigned: [] });
    expect(report.feasible).toBe(false);
    expect(report.violations.join()).toMatch(/order 0 reached after its windows close/);
  });

  it('rejects a load over the capacity in either dimension', () => {
    const problem = base();
    problem.vehicles[0] = { ...problem.vehicles[0], capacity: [Infinity, 2.5] };
    const report = checkSolution(problem, served);
    expect(report.feasible).toBe(false);
    expect(report.violations.join()).toMatch(/load 3 over capacity 2.5 \(dimension 1\)/);
  });

  it('rejects a return after the shift ends', () => {
    const problem = base();
    problem.vehicles[0] = { ...problem.vehicles[0], shiftEnd: 41 };
    const report = checkSolution(problem, served);
    expect(report.feasible).toBe(false);
    expect(report.violations.join()).toMatch(/back at 43, shift ends 41/);
  });

  it('rejects more stops than maxStops', () => {
    const problem = base();
    problem.vehicles[0] = { ...problem.vehicles[0], maxStops: 2 };
    expect(checkSolution(problem, served).violations.join()).toMatch(/3 stops, at most 2/);
  });

  it('rejects an order whose skills the vehicle lacks', () => {
    const problem = base();
    problem.vehicles[0] = { ...problem.vehicles[0], skills: [] };
    expect(checkSolution(problem, served).violations.join()).toMatch(/order 2 needs skill cold/);
  });

  it('rejects an order placed twice, and an order placed nowhere', () => {
    const problem = base();
    problem.vehicles.push({ ...problem.vehicles[0] });
    const twice = checkSolution(problem, { routes: [{ vehicle: 0, orders: [0, 1, 2] }, { vehicle: 1, orders: [2] }], unassigned: [] });
    expect(twice.feasible).toBe(false);
    expect(twice.violations).toContain('order 2: placed 2 times');
    const missing = checkSolution(problem, { routes: [{ vehicle: 0, orders: [0, 1] }], unassigned: [] });
    expect(missing.feasible).toBe(false);
    expect(missing.violations).toContain('order 2: neither in a route nor unassigned');
    const inRouteAndUnassigned = checkSolution(problem, { routes: [{ vehicle: 0, orders: [0, 1, 2] }], unassigned: [{ order: 1, codes: ['no_room'] }] });
    expect(inRouteAndUnassigned.violations).toContain('order 1: placed 2 times');
  });

  it('rejects two routes for one vehicle', () => {
    const report = checkSolution(base(), { routes: [{ vehicle: 0, orders: [0] }, { vehicle: 0, orders: [1, 2] }], unassigned: [] });
    expect(report.violations).toContain('vehicle 0: has two routes');
  });
});
