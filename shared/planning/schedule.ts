import type { PlannedVehicleRoute, PlanningProblem } from './problem.ts';

export interface ScheduledStop {
  order: number;
  arrival: number;
  serviceStart: number;
  departure: number;
  wait: number;
  distanceFromPrevious: number;
}

export interface RouteSchedule {
  /** Leaving the depot. */
  start: number;
  /** Back at the depot. */
  end: number;
  distance: number;
  /** `end - start`, waiting included. */
  duration: number;
  load: [number, number];
  stops: ScheduledStop[];
}

export class RouteInfeasibleError extends Error {
  readonly code = 'route_infeasible';
}

/**
 * The times of a route (decisions 15): it leaves at the departure that makes the route shortest
 * in time (the earliest of those), each stop served in the first window still open on arrival.
 * Route time can only be least where leaving later stops shortening it: when some stop is reached
 * without waiting exactly at a window's opening or close, or at the latest departure the shift
 * allows; each of those departures is tried (O(stops²), once per route).
 */
export function scheduleRoute(problem: PlanningProblem, route: PlannedVehicleRoute): RouteSchedule {
  const vehicle = problem.vehicles[route.vehicle];
  const size = problem.orders.length + 1;
  const candidates = [vehicle.shiftStart];
  let offset = 0;
  let prev = 0;
  for (const order of route.orders) {
    offset += problem.duration[prev * size + order + 1];
    for (const [from, to] of problem.orders[order].windows) candidates.push(from - offset, to - offset);
    offset += problem.orders[order].service;
    prev = order + 1;
  }
  candidates.push(vehicle.shiftEnd - offset - problem.duration[prev * size]);
  let best: RouteSchedule | null = null;
  for (const depart of candidates.sort((a, b) => a - b)) {
    if (!(depart >= vehicle.shiftStart)) continue;
    const schedule = simulate(problem, route, depart);
    if (schedule && schedule.end <= vehicle.shiftEnd && (!best || schedule.duration < best.duration)) best = schedule;
  }
  if (!best) throw new RouteInfeasibleError(`vehicle ${route.vehicle}: no departure serves the route within its windows and shift`);
  return best;
}

function simulate(problem: PlanningProblem, route: PlannedVehicleRoute, depart: number): RouteSchedule | null {
  const size = problem.orders.length + 1;
  const stops: ScheduledStop[] = [];
  const load: [number, number] = [0, 0];
  let t = depart;
  let prev = 0;
  let distance = 0;
  for (const order of route.orders) {
    const o = problem.orders[order];
    const c = order + 1;
    const arrival = t + problem.duration[prev * size + c];
    let serviceStart = arrival;
    if (o.windows.length > 0) {
      const window = o.windows.find(([, to]) => arrival <= to);
      if (!window) return null;
      serviceStart = Math.max(arrival, window[0]);
    }
    const leg = problem.distance[prev * size + c];
    distance += leg;
    t = serviceStart + o.service;
    load[0] += o.load[0];
    load[1] += o.load[1];
    stops.push({ order, arrival, serviceStart, departure: t, wait: serviceStart - arrival, distanceFromPrevious: leg });
    prev = c;
  }
  const end = t + problem.duration[prev * size];
  distance += problem.distance[prev * size];
  return { start: depart, end, distance, duration: end - depart, load, stops };
}
