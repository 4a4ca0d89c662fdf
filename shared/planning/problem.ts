/**
 * The route optimizer's port (decisions 15): a problem in plain numbers, a solution in indices.
 * The service's own optimizer implements it (shared/planning/optimizer); an external engine
 * (VROOM, PyVRP, Google's Route Optimization API) would be another adapter of the same port.
 *
 * Locations: index 0 is the depot, index i + 1 is order i. Times are seconds from midnight of the
 * service date in the tenant's time zone (the benchmarks use the instance's own unit); both
 * matrices are row-major, `size * size`, with `size = orders.length + 1`.
 */
export interface PlanningProblem {
  /** Distance between locations (metres in the service; the instance's unit in the benchmarks). */
  distance: Float64Array;
  /** Travel time between locations, in seconds (the benchmarks: equal to the distance). */
  duration: Float64Array;
  orders: PlanningOrder[];
  vehicles: PlanningVehicle[];
  /**
   * `duration`: fewest unassigned, then least total route time (leaving the depot to coming back,
   * waiting included). `distance`: fewest unassigned, then least total distance. `vehicles`:
   * fewest unassigned, then fewest routes, then least total distance (decisions 18).
   */
  objective: 'duration' | 'distance' | 'vehicles';
}

export interface PlanningOrder {
  /**
   * Windows in which service may start, ascending and disjoint (`[from, to]`, inclusive). An
   * empty list means any time within the vehicle's shift.
   */
  windows: Array<readonly [number, number]>;
  /** Time spent at the stop, in seconds. */
  service: number;
  /** Load in each dimension (weight, volume). */
  load: readonly [number, number];
  /** Every skill here must be among the vehicle's. */
  skills: readonly string[];
}

export interface PlanningVehicle {
  /** Earliest departure from the depot. */
  shiftStart: number;
  /** Latest return to the depot. */
  shiftEnd: number;
  /** Capacity in each dimension; `Infinity` for unlimited. */
  capacity: readonly [number, number];
  skills: readonly string[];
  /** At most this many stops. */
  maxStops: number;
}

export interface PlannedVehicleRoute {
  /** Index into `problem.vehicles`; each vehicle has at most one route. */
  vehicle: number;
  /** Indices into `problem.orders`, in visiting order (never empty). */
  orders: number[];
}

export type UnassignedCode = 'capacity_exceeded' | 'skills_missing' | 'time_window_unreachable' | 'no_vehicle_fits' | 'no_room';

export interface PlanningSolution {
  routes: PlannedVehicleRoute[];
  /** Orders in no route, each with the reasons that are true of it (shared/planning/reasons.ts). */
  unassigned: Array<{ order: number; codes: UnassignedCode[] }>;
  /**
   * Search statistics, for the preview's `solver` and the benchmarks. `stoppedBy`: `work` when
   * the search spent its work budget (the routes depend on nothing but the problem, the seed and
   * the budget), `time` when the safety limit `seconds` ended it first.
   */
  stats: { iterations: number; work: number; elapsedMs: number; stoppedBy: 'work' | 'time' };
}

export interface SolveOptions {
  /**
   * The safety limit, in seconds of CPU time of the solving thread (process.cpuUsage on the main
   * thread, process.threadCpuUsage in a worker thread): machines are shared, so the wall clock
   * would measure the neighbours too. Only a machine too slow for `work` reaches it.
   */
  seconds: number;
  /** The random generator's seed: the same problem, seed and work give the same routes. */
  seed: number;
  /**
   * The deterministic budget, in units of work (insertion positions evaluated, stops rescheduled
   * or copied: shared/planning/optimizer/budget.ts). The search stops when it is spent, or at
   * `seconds`, whichever comes first. Default: `defaultWork(seconds)`, which ends well within
   * `seconds` on the cloud function.
   */
  work?: number;
}

/**
 * Asynchronous, as any engine behind it may be (another thread, another process, a remote API):
 * the local stack solves in a worker thread so that its one event loop keeps answering requests.
 */
export interface RouteOptimizer {
  readonly name: string;
  readonly version: string;
  solve(problem: PlanningProblem, options: SolveOptions): Promise<PlanningSolution>;
}
