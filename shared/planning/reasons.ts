import type { PlanningProblem, UnassignedCode } from './problem.ts';

export type VehicleRuleCode = Exclude<UnassignedCode, 'no_room' | 'no_vehicle_fits'>;

export interface UnassignedReasons {
  /**
   * `['no_room']` when some vehicle could serve the order alone. Else every code that holds for
   * every vehicle, or `['no_vehicle_fits']` when none does (one lacks a skill, another is too small).
   */
  codes: UnassignedCode[];
  /** Per code, the vehicles (indices into `problem.vehicles`) it rules out: empty under `no_room`. */
  ruledOut: Partial<Record<VehicleRuleCode, number[]>>;
  /** Vehicles that take no stop at all (`maxStops` 0; the API never sends one), ruled out by no code. */
  noStops: number[];
  /** Vehicles in the problem, so a message can say "all 3 vehicles" only when it is true. */
  vehicleCount: number;
}

const RULE_CODES = ['skills_missing', 'capacity_exceeded', 'time_window_unreachable'] as const;

/**
 * Why an order is in no route, told truthfully (decisions 15, amended by 18): each vehicle is
 * asked whether it could serve the order alone, depot → order → depot. If one could, the order
 * was left out for lack of room beside the others (`no_room`; whether a last insertion pass
 * confirms that against the final routes is the optimizer's to check). If none could, a code is
 * given only where it holds for every vehicle, since each code's definition speaks of all of
 * them; when none does, `no_vehicle_fits`, with what rules out each vehicle in `ruledOut`.
 */
export function unassignedReasons(problem: PlanningProblem, order: number): UnassignedReasons {
  const o = problem.orders[order];
  const size = problem.orders.length + 1;
  const c = order + 1;
  const ruledOut: Record<VehicleRuleCode, number[]> = { skills_missing: [], capacity_exceeded: [], time_window_unreachable: [] };
  const noStops: number[] = [];
  const vehicleCount = problem.vehicles.length;
  let someoneFits = false;
  problem.vehicles.forEach((v, index) => {
    const skillsOk = o.skills.every((s) => v.skills.includes(s));
    const capacityOk = o.load[0] <= v.capacity[0] && o.load[1] <= v.capacity[1];
    const timeOk = reachableAlone(problem, c, size, v.shiftStart, v.shiftEnd);
    if (!skillsOk) ruledOut.skills_missing.push(index);
    if (!capacityOk) ruledOut.capacity_exceeded.push(index);
    if (!timeOk) ruledOut.time_window_unreachable.push(index);
    if (skillsOk && capacityOk && timeOk) {
      if (v.maxStops >= 1) someoneFits = true;
      else noStops.push(index);
    }
  });
  if (someoneFits) return { codes: ['no_room'], ruledOut: {}, noStops: [], vehicleCount };
  const kept: Partial<Record<VehicleRuleCode, number[]>> = {};
  for (const code of RULE_CODES) if (ruledOut[code].length > 0) kept[code] = ruledOut[code];
  // With no vehicle at all, nothing can be claimed of "every vehicle".
  if (vehicleCount === 0) return { codes: [], ruledOut: kept, noStops, vehicleCount };
  const everyVehicle = RULE_CODES.filter((code) => ruledOut[code].length === vehicleCount);
  return { codes: everyVehicle.length > 0 ? everyVehicle : ['no_vehicle_fits'], ruledOut: kept, noStops, vehicleCount };
}

/** Leaving at the shift's start (waiting is allowed, so no later departure does better). */
function reachableAlone(problem: PlanningProblem, c: number, size: number, shiftStart: number, shiftEnd: number): boolean {
  const order = problem.orders[c - 1];
  const arrival = shiftStart + problem.duration[c];
  const windows = order.windows.length === 0 ? [[arrival, Infinity] as const] : order.windows;
  for (const [from, to] of windows) {
    if (arrival > to) continue;
    const start = Math.max(arrival, from);
    return start + order.service + problem.duration[c * size] <= shiftEnd;
  }
  return false;
}
