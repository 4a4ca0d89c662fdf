import type { PlanningProblem } from '../../../shared/planning/problem.ts';
import { travelMatrices } from '../../../shared/planning/travel.ts';
import type { OrderRecord } from '../../orders/records.ts';
import type { DayClock } from './day-clock.ts';
import type { PreviewRequest } from './request.ts';

/**
 * Loads go to the optimizer in thousandths (grams, litres) as whole numbers: the API's amounts
 * have at most 3 decimals, so every sum and comparison of capacity is exact.
 */
export const thousandths = (amount: number): number => Math.round(amount * 1000);

/**
 * decisions 17: a vehicle leaves at or after the later of its shift's start and the preview's
 * earliestStart (a preview of today). A shift over by then leaves no time: its start becomes its
 * end, so every order is time_window_unreachable for it and the optimizer sees a valid shift.
 */
const departureFrom = (shiftStart: number, shiftEnd: number, earliestStart: number | null | undefined): number =>
  earliestStart === null || earliestStart === undefined ? shiftStart : Math.min(shiftEnd, Math.max(shiftStart, earliestStart));

/**
 * The optimizer's problem for a stored request (shared/planning/problem.ts): location 0 the
 * depot, location i + 1 the request's order i; times in seconds from midnight of the service
 * date in the tenant's zone; a vehicle's unlimited capacity is Infinity.
 */
export const buildProblem = (request: PreviewRequest, orders: OrderRecord[], clock: DayClock): PlanningProblem => {
  const points = [request.depot, ...orders.map((order) => order.address)];
  const { distance, duration } = travelMatrices(points, request.speedKmh);
  return {
    distance,
    duration,
    objective: request.objective,
    orders: orders.map((order) => ({
      windows: order.timeWindows.map((w) => [clock.seconds(w.from), clock.seconds(w.to)] as const),
      service: order.serviceMinutes * 60,
      load: [thousandths(order.load.weightKg), thousandths(order.load.volumeM3)] as const,
      skills: order.skills,
    })),
    vehicles: request.vehicles.map((vehicle) => ({
      shiftStart: departureFrom(clock.seconds(vehicle.shiftStart), clock.seconds(vehicle.shiftEnd), request.earliestStart),
      shiftEnd: clock.seconds(vehicle.shiftEnd),
      capacity: [vehicle.capacity.weightKg === null ? Infinity : thousandths(vehicle.capacity.weightKg), vehicle.capacity.volumeM3 === null ? Infinity : thousandths(vehicle.capacity.volumeM3)] as const,
      skills: vehicle.skills,
      maxStops: vehicle.maxStops,
    })),
  };
};
