import type { PlannedVehicleRoute, PlanningProblem, PlanningSolution } from '../../../shared/planning/problem.ts';
import { RouteInfeasibleError, scheduleRoute, type RouteSchedule } from '../../../shared/planning/schedule.ts';
import { unassignedReasons } from '../../../shared/planning/reasons.ts';
import type { Preview, PreviewRoute, PreviewStop, UnassignedOrder } from '../preview-schemas.ts';
import type { DayClock } from './day-clock.ts';
import { reasonMessage } from './reason-messages.ts';

/** The optimizer answered something that breaks a rule of decisions 15: the preview fails rather than show it. */
export class InfeasibleSolutionError extends Error {}

const fromThousandths = (value: number): number => Math.round(value) / 1000;

/**
 * One vehicle's route, every rule checked: its times from shared/planning/schedule.ts (each
 * arrival the previous departure plus the travel time, service at the arrival or the opening of
 * the first window still open, within it; back by the shift's end), and here its stop count,
 * skills and load within the vehicle's.
 */
const timeRoute = (problem: PlanningProblem, route: PlannedVehicleRoute): RouteSchedule => {
  const vehicle = problem.vehicles[route.vehicle];
  if (!vehicle) throw new InfeasibleSolutionError(`no vehicle ${route.vehicle}`);
  if (route.orders.length > vehicle.maxStops) throw new InfeasibleSolutionError(`vehicle ${route.vehicle}: ${route.orders.length} stops, at most ${vehicle.maxStops}`);
  for (const order of route.orders) {
    if (problem.orders[order].skills.some((skill) => !vehicle.skills.includes(skill))) throw new InfeasibleSolutionError(`order ${order} needs a skill vehicle ${route.vehicle} lacks`);
  }
  let schedule: RouteSchedule;
  try {
    schedule = scheduleRoute(problem, route);
  } catch (error) {
    if (error instanceof RouteInfeasibleError) throw new InfeasibleSolutionError(error.message);
    throw error;
  }
  if (schedule.load[0] > vehicle.capacity[0] || schedule.load[1] > vehicle.capacity[1]) throw new InfeasibleSolutionError(`vehicle ${route.vehicle}: load over capacity`);
  if (schedule.start < vehicle.shiftStart || schedule.end > vehicle.shiftEnd) throw new InfeasibleSolutionError(`vehicle ${route.vehicle}: outside its shift`);
  return schedule;
};

/**
 * What a reader needs to read a preview at a glance (decisions 17), by the problem's indices:
 * each order's reference, each vehicle's label and plate, and the assigned route a vehicle keeps.
 */
export interface PreviewGlance {
  references: Array<string | null>;
  vehicles: Array<{ label: string | null; plate: string | null; routeId: string | null }>;
}

/**
 * The preview's routes, unassigned orders and totals from the optimizer's solution. Each route
 * leaves the depot at the departure that makes it shortest in time (so the first stop never
 * waits: leaving later by that wait would be shorter), for either objective. Routes are
 * numbered V1, V2, ... in the order of the request's vehicles.
 */
export const previewResult = (
  problem: PlanningProblem,
  solution: PlanningSolution,
  ids: { orderIds: string[]; vehicleIds: string[] } & Partial<PreviewGlance>,
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
      const { start, end, distance, duration, load, stops } = timeRoute(problem, route);
      const vehicle = ids.vehicles?.[route.vehicle];
      return {
        vehicleRouteId: `V${r + 1}`,
        routeId: vehicle?.routeId ?? null,
        vehicleId: ids.vehicleIds[route.vehicle],
        label: vehicle?.label ?? null,
        plate: vehicle?.plate ?? null,
        startAt: clock.dateTime(start),
        endAt: clock.dateTime(end),
        distanceMeters: distance,
        durationSeconds: duration,
        load: { weightKg: fromThousandths(load[0]), volumeM3: fromThousandths(load[1]) },
        stops: stops.map(
          (stop, i): PreviewStop => ({
            sequence: i + 1,
            orderId: ids.orderIds[stop.order],
            reference: ids.references?.[stop.order] ?? null,
            arrivalAt: clock.dateTime(stop.arrival),
            serviceStartAt: clock.dateTime(stop.serviceStart),
            departureAt: clock.dateTime(stop.departure),
            waitSeconds: stop.wait,
            distanceMetersFromPrevious: stop.distanceFromPrevious,
          }),
        ),
      };
    });
  const unassigned: UnassignedOrder[] = solution.unassigned.map(({ order }) => {
    place(order);
    // Asked again here rather than taken from the solution, for the vehicles behind each code.
    const why = unassignedReasons(problem, order);
    return { orderId: ids.orderIds[order], reasons: why.codes.map((code) => ({ code, message: reasonMessage(code, why) })) };
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
