import type { PlanningProblem, PlanningSolution, RouteOptimizer, SolveOptions } from '../problem.ts';
import { unassignedReasons } from '../reasons.ts';
import { cpuUsage, defaultWork } from './budget.ts';
import { compileModel } from './model.ts';
import { search } from './search.ts';

export const OPTIMIZER_NAME = 'delivery-ops-sisr';
export const OPTIMIZER_VERSION = '2.4.0';

/** The service's own optimizer (docs/routing.md): SISR ruin and recreate, a granular local search, simulated annealing. */
export function createOptimizer(): RouteOptimizer {
  return { name: OPTIMIZER_NAME, version: OPTIMIZER_VERSION, solve: async (problem, options) => solveProblem(problem, options) };
}

export const routeOptimizer: RouteOptimizer = createOptimizer();

/** The search itself, on the calling thread (the port's `solve` and the worker thread call it). */
export function solveProblem(problem: PlanningProblem, options: SolveOptions): PlanningSolution {
  const cpuStart = cpuUsage();
  const n = problem.orders.length;
  const size = n + 1;
  if (problem.distance.length !== size * size || problem.duration.length !== size * size) {
    throw new RangeError(`matrices must be ${size} x ${size}`);
  }
  const work = options.work ?? defaultWork(options.seconds);
  // Nothing to search: answer at once rather than spend the budget.
  const result =
    n === 0 || problem.vehicles.length === 0
      ? { routes: [], iterations: 0, work: 0, elapsedMs: 0, stoppedBy: 'work' as const }
      : search(compileModel(problem), { work, seconds: options.seconds, seed: options.seed, cpuStart });
  const routes = result.routes.flatMap((stops, vehicle) => (stops.length > 0 ? [{ vehicle, orders: stops.map((c) => c - 1) }] : []));
  const served = new Uint8Array(n);
  for (const route of routes) for (const order of route.orders) served[order] = 1;
  const unassigned: PlanningSolution['unassigned'] = [];
  for (let order = 0; order < n; order++) {
    if (!served[order]) unassigned.push({ order, codes: unassignedReasons(problem, order).codes });
  }
  return { routes, unassigned, stats: { iterations: result.iterations, work: result.work, elapsedMs: result.elapsedMs, stoppedBy: result.stoppedBy } };
}
