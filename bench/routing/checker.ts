import type { PlanningProblem, PlanningSolution } from '../../shared/planning/problem.ts';

/**
 * An independent check of a solution, written apart from the optimizer (it imports none of its
 * code): a plain forward simulation of each route from the problem's raw numbers, leaving the
 * depot at the shift's start (waiting is allowed, so no later departure is more feasible).
 */
export interface CheckReport {
  feasible: boolean;
  violations: string[];
  /** Orders in some route. */
  served: number;
  routes: number;
  /** Summed distance of all routes, double precision, no rounding. */
  distance: number;
  /** Summed least route time (leaving the depot to coming back, waiting included). */
  duration: number;
}

/** Float sums of travel times may differ from the optimizer's in the last bits. */
const TOLERANCE = 1e-7;

export function checkSolution(problem: PlanningProblem, solution: Pick<PlanningSolution, 'routes' | 'unassigned'>): CheckReport {
  const n = problem.orders.length;
  const size = n + 1;
  const violations: string[] = [];
  const seen = new Array<number>(n).fill(0);
  const vehicleUsed = new Set<number>();
  let distance = 0;
  let duration = 0;
  for (const route of solution.routes) {
    const v = problem.vehicles[route.vehicle];
    const where = `vehicle ${route.vehicle}`;
    if (!v) {
      violations.push(`${where}: no such vehicle`);
      continue;
    }
    if (vehicleUsed.has(route.vehicle)) violations.push(`${where}: has two routes`);
    vehicleUsed.add(route.vehicle);
    if (route.orders.length === 0) violations.push(`${where}: empty route`);
    if (route.orders.length > v.maxStops) violations.push(`${where}: ${route.orders.length} stops, at most ${v.maxStops}`);
    const load = [0, 0];
    let bad = false;
    for (const order of route.orders) {
      if (!Number.isInteger(order) || order < 0 || order >= n) {
        violations.push(`${where}: no order ${order}`);
        bad = true;
        continue;
      }
      seen[order]++;
      const o = problem.orders[order];
      load[0] += o.load[0];
      load[1] += o.load[1];
      for (const skill of o.skills) if (!v.skills.includes(skill)) violations.push(`${where}: order ${order} needs skill ${skill}`);
    }
    if (bad) continue;
    for (const d of [0, 1]) if (load[d] > v.capacity[d] + TOLERANCE) violations.push(`${where}: load ${load[d]} over capacity ${v.capacity[d]} (dimension ${d})`);
    const sim = simulate(problem, route.orders, v.shiftStart);
    if (sim.late !== null) violations.push(`${where}: order ${route.orders[sim.late]} reached after its windows close`);
    else if (sim.end > v.shiftEnd + TOLERANCE) violations.push(`${where}: back at ${sim.end}, shift ends ${v.shiftEnd}`);
    let prev = 0;
    for (const order of route.orders) {
      distance += problem.distance[prev * size + order + 1];
      prev = order + 1;
    }
    distance += problem.distance[prev * size];
    if (sim.late === null) duration += leastDuration(problem, route.orders, v.shiftStart, v.shiftEnd);
  }
  for (const u of solution.unassigned) {
    if (u.order >= 0 && u.order < n) seen[u.order] += 1;
  }
  seen.forEach((count, order) => {
    if (count === 0) violations.push(`order ${order}: neither in a route nor unassigned`);
    if (count > 1) violations.push(`order ${order}: placed ${count} times`);
  });
  const served = solution.routes.reduce((s, r) => s + r.orders.length, 0);
  return { feasible: violations.length === 0, violations, served, routes: solution.routes.length, distance, duration };
}

/**
 * Leaves the depot at `depart` and serves each order in the first window still open on arrival
 * (waiting for its opening). `late` is the index of the first order every window of which has
 * closed, else null; `end` the arrival back at the depot.
 */
function simulate(problem: PlanningProblem, orders: number[], depart: number): { late: number | null; end: number } {
  const size = problem.orders.length + 1;
  let t = depart;
  let prev = 0;
  for (let i = 0; i < orders.length; i++) {
    const c = orders[i] + 1;
    const o = problem.orders[orders[i]];
    const arrival = t + problem.duration[prev * size + c];
    let start = arrival;
    if (o.windows.length > 0) {
      const w = o.windows.find(([, to]) => arrival <= to + TOLERANCE);
      if (!w) return { late: i, end: Infinity };
      start = Math.max(arrival, w[0]);
    }
    t = start + o.service;
    prev = c;
  }
  return { late: null, end: t + problem.duration[prev * size] };
}

/**
 * The least route time over departures: it can only be least where leaving later stops shortening
 * the route, when some order is reached without waiting exactly at a window's opening or close, or
 * at the latest departure; each such departure is tried.
 */
function leastDuration(problem: PlanningProblem, orders: number[], shiftStart: number, shiftEnd: number): number {
  const size = problem.orders.length + 1;
  const candidates = [shiftStart];
  let offset = 0;
  let prev = 0;
  for (const order of orders) {
    const c = order + 1;
    offset += problem.duration[prev * size + c];
    for (const [from, to] of problem.orders[order].windows) candidates.push(from - offset, to - offset);
    offset += problem.orders[order].service;
    prev = c;
  }
  candidates.push(shiftEnd - offset - problem.duration[prev * size]);
  let best = Infinity;
  for (const d of candidates) {
    if (!(d >= shiftStart)) continue;
    const sim = simulate(problem, orders, d);
    if (sim.late === null && sim.end <= shiftEnd + TOLERANCE) best = Math.min(best, sim.end - d);
  }
  return best;
}

/** One route on its own: whether it breaks nothing, its distance and its least route time. */
export function routeCost(problem: PlanningProblem, vehicle: number, orders: number[]): { feasible: boolean; distance: number; duration: number } {
  const unassigned = problem.orders.map((_, order) => ({ order, codes: [] })).filter((u) => !orders.includes(u.order));
  const report = checkSolution(problem, { routes: [{ vehicle, orders }], unassigned });
  return { feasible: report.feasible, distance: report.distance, duration: report.duration };
}
