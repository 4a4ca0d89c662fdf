import type { PlanningProblem, PlanningSolution, UnassignedCode } from '../../../shared/planning/problem.ts';
import type { Preview, PreviewRoute, PreviewStop, UnassignedOrder } from '../preview-schemas.ts';
import type { DayClock } from './day-clock.ts';

/** The optimizer answered something that breaks a rule of decisions 15: the preview fails rather than show it. */
export class InfeasibleSolutionError extends Error {}

const reasonMessages: Record<UnassignedCode, string> = {
  capacity_exceeded: 'Its load is more than any vehicle of the preview can carry.',
  skills_missing: 'No vehicle of the preview has every skill it needs.',
  time_window_unreachable: 'No vehicle of the preview can serve it within one of its time windows and the vehicle’s shift, even on a route of its own.',
  no_room: 'A vehicle could serve it on a route of its own, but it does not fit on the routes found for the other orders.',
};

interface TimedStop {
  order: number;
  arrival: number;
  serviceStart: number;
  departure: number;
  meters: number;
}

const fromThousandths = (value: number): number => Math.round(value) / 1000;

/**
 * The schedule of one vehicle's orders under the travel model, every rule checked: leaving the
 * depot at the shift's start, each arrival the previous departure plus the travel time, service
 * starting at the arrival or the opening of the first window still open, within it, and back by
 * the shift's end; load, stop count and skills within the vehicle's.
 */
const timeRoute = (problem: PlanningProblem, vehicleIndex: number, orders: number[]): { stops: TimedStop[]; end: number; meters: number; load: [number, number] } => {
  const vehicle = problem.vehicles[vehicleIndex];
  const size = problem.orders.length + 1;
  if (orders.length === 0 || orders.length > vehicle.maxStops) throw new InfeasibleSolutionError(`vehicle ${vehicleIndex}: ${orders.length} stops, at most ${vehicle.maxStops}`);
  const load: [number, number] = [0, 0];
  const stops: TimedStop[] = [];
  let at = 0;
  let time = vehicle.shiftStart;
  let meters = 0;
  for (const order of orders) {
    const spec = problem.orders[order];
    if (!spec) throw new InfeasibleSolutionError(`no order ${order}`);
    if (spec.skills.some((skill) => !vehicle.skills.includes(skill))) throw new InfeasibleSolutionError(`order ${order} needs a skill vehicle ${vehicleIndex} lacks`);
    const arrival = time + problem.duration[at * size + order + 1];
    const window = spec.windows.length === 0 ? [arrival, Infinity] : spec.windows.find(([, close]) => arrival <= close);
    if (!window) throw new InfeasibleSolutionError(`order ${order}: arrival after its last window`);
    const serviceStart = Math.max(arrival, window[0]);
    const leg = problem.distance[at * size + order + 1];
    stops.push({ order, arrival, serviceStart, departure: serviceStart + spec.service, meters: leg });
    meters += leg;
    load[0] += spec.load[0];
    load[1] += spec.load[1];
    time = serviceStart + spec.service;
    at = order + 1;
  }
  if (load[0] > vehicle.capacity[0] || load[1] > vehicle.capacity[1]) throw new InfeasibleSolutionError(`vehicle ${vehicleIndex}: load over capacity`);
  const end = time + problem.duration[at * size];
  if (end > vehicle.shiftEnd) throw new InfeasibleSolutionError(`vehicle ${vehicleIndex}: back after the shift`);
  return { stops, end, meters: meters + problem.distance[at * size], load };
};

/**
 * The preview's routes, unassigned orders and totals from the optimizer's solution. Each route
 * leaves the depot as late as it can without moving any service start: by the wait at its first
 * stop (a later departure only shortens that wait), so `durationSeconds` holds no wait that a
 * later start would save. Routes are numbered V1, V2, ... in the order of the request's vehicles.
 */
export const previewResult = (
  problem: PlanningProblem,
  solution: PlanningSolution,
  ids: { orderIds: string[]; vehicleIds: string[] },
  clock: DayClock,
): Pick<Preview, 'routes' | 'unassigned' | 'totals'> => {
  const placed = new Set<number>();
  const place = (order: number) => {
    if (!Number.isInteger(order) || order < 0 || order >= problem.orders.length) throw new InfeasibleSolutionError(`no order ${order}`);
    if (placed.has(order)) throw new InfeasibleSolutionError(`order ${order} placed twice`);
    placed.add(order);
  };
  const vehiclesUsed = new Set<number>();
  const routes: PreviewRoute[] = [...solution.routes]
    .filter((route) => route.orders.length > 0)
    .sort((a, b) => a.vehicle - b.vehicle)
    .map((route, r) => {
      if (vehiclesUsed.has(route.vehicle)) throw new InfeasibleSolutionError(`vehicle ${route.vehicle} has two routes`);
      vehiclesUsed.add(route.vehicle);
      route.orders.forEach(place);
      const { stops, end, meters, load } = timeRoute(problem, route.vehicle, route.orders);
      const lateBy = stops[0].serviceStart - stops[0].arrival;
      const start = problem.vehicles[route.vehicle].shiftStart + lateBy;
      stops[0].arrival += lateBy;
      return {
        vehicleRouteId: `V${r + 1}`,
        vehicleId: ids.vehicleIds[route.vehicle],
        startAt: clock.dateTime(start),
        endAt: clock.dateTime(end),
        distanceMeters: meters,
        durationSeconds: end - start,
        load: { weightKg: fromThousandths(load[0]), volumeM3: fromThousandths(load[1]) },
        stops: stops.map(
          (stop): PreviewStop => ({
            orderId: ids.orderIds[stop.order],
            arrivalAt: clock.dateTime(stop.arrival),
            serviceStartAt: clock.dateTime(stop.serviceStart),
            departureAt: clock.dateTime(stop.departure),
            waitSeconds: stop.serviceStart - stop.arrival,
            distanceMetersFromPrevious: stop.meters,
          }),
        ),
      };
    });
  const unassigned: UnassignedOrder[] = solution.unassigned.map(({ order, codes }) => {
    place(order);
    return { orderId: ids.orderIds[order], reasons: codes.map((code) => ({ code, message: reasonMessages[code] })) };
  });
  if (placed.size !== problem.orders.length) throw new InfeasibleSolutionError(`${problem.orders.length - placed.size} orders neither routed nor unassigned`);
  const assignedCount = routes.reduce((n, route) => n + route.stops.length, 0);
  return {
    routes,
    unassigned,
    totals: {
      routeCount: routes.length,
      assignedCount,
      unassignedCount: unassigned.length,
      distanceMeters: routes.reduce((n, route) => n + route.distanceMeters, 0),
      durationSeconds: routes.reduce((n, route) => n + route.durationSeconds, 0),
    },
  };
};
