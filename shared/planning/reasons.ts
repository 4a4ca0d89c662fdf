import type { PlanningProblem, UnassignedCode } from './problem.ts';

export type VehicleRuleCode = Exclude<UnassignedCode, 'no_room'>;

export interface UnassignedReasons {
  /** `['no_room']` when some vehicle could serve the order alone; else each code that rules out a vehicle. */
  codes: UnassignedCode[];
  /** Per code, the vehicles (indices into `problem.vehicles`) it rules out. */
  ruledOut: Partial<Record<VehicleRuleCode, number[]>>;
  /** Vehicles in the problem, so a message can say "all 3 vehicles" only when it is true. */
  vehicleCount: number;
}

/**
 * Why an order is in no route, told truthfully (decisions 15): each vehicle is asked whether it
 * could serve the order alone, depot → order → depot. If one could, the order was left out for
 * lack of room beside the others (`no_room`). If none could, every code that rules out at least
 * one vehicle is listed with the vehicles it rules out, so a message can say exactly which; a
 * code is never given for a vehicle it does not rule out.
 */
export function unassignedReasons(problem: PlanningProblem, order: number): UnassignedReasons {
  const o = problem.orders[order];
  const size = problem.orders.length + 1;
  const c = order + 1;
  const ruledOut: Record<VehicleRuleCode, number[]> = { skills_missing: [], capacity_exceeded: [], time_window_unreachable: [] };
  let someoneFits = false;
  problem.vehicles.forEach((v, index) => {
    const skills = new Set(v.skills);
    const skillsOk = o.skills.every((s) => skills.has(s));
    const capacityOk = o.load[0] <= v.capacity[0] && o.load[1] <= v.capacity[1];
    const timeOk = reachableAlone(problem, c, size, v.shiftStart, v.shiftEnd);
    if (!skillsOk) ruledOut.skills_missing.push(index);
    if (!capacityOk) ruledOut.capacity_exceeded.push(index);
    if (!timeOk) ruledOut.time_window_unreachable.push(index);
    if (skillsOk && capacityOk && timeOk && v.maxStops >= 1) someoneFits = true;
  });
  if (someoneFits) return { codes: ['no_room'], ruledOut: {}, vehicleCount: problem.vehicles.length };
  const codes: UnassignedCode[] = [];
  const kept: Partial<Record<VehicleRuleCode, number[]>> = {};
  for (const code of ['skills_missing', 'capacity_exceeded', 'time_window_unreachable'] as const) {
    if (ruledOut[code].length > 0) {
      codes.push(code);
      kept[code] = ruledOut[code];
    }
  }
  return { codes, ruledOut: kept, vehicleCount: problem.vehicles.length };
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
