import type { UnassignedReasons, VehicleRuleCode } from '../../../shared/planning/reasons.ts';
import type { UnassignedCode } from '../../../shared/planning/problem.ts';

/** Vehicles by their place in the request (1-based), runs of three or more as ranges: "vehicles 1-3, 5 and 7". */
export const vehicleList = (indices: readonly number[]): string => {
  const parts: string[] = [];
  for (let i = 0; i < indices.length; ) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j] + 1) j++;
    if (j - i >= 2) parts.push(`${indices[i] + 1}-${indices[j] + 1}`);
    else for (let k = i; k <= j; k++) parts.push(String(indices[k] + 1));
    i = j + 1;
  }
  const joined = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
  return `${indices.length === 1 ? 'vehicle' : 'vehicles'} ${joined}`;
};

const REACH = 'serve it within one of its time windows and be back by the end of the shift, even on a route of its own';

/** What rules out the vehicles of one code, as a clause of the `no_vehicle_fits` message. */
const clause = (code: VehicleRuleCode, vehicles: number[]): string => {
  const one = vehicles.length === 1;
  switch (code) {
    case 'skills_missing':
      return `${vehicleList(vehicles)} ${one ? 'lacks' : 'lack'} a skill it needs`;
    case 'capacity_exceeded':
      return `its load is more than ${vehicleList(vehicles)} can carry`;
    case 'time_window_unreachable':
      return `${vehicleList(vehicles)} cannot ${REACH.replace(', even on a route of its own', '')}`;
  }
};

/**
 * Each reason told as it is (decisions 15 and 18): a code other than `no_room` and
 * `no_vehicle_fits` holds for every vehicle, and says so; `no_vehicle_fits` names, per rule,
 * the vehicles it rules out (numbered as in the request), so every vehicle is accounted for.
 */
export const reasonMessage = (code: UnassignedCode, why: UnassignedReasons): string => {
  const n = why.vehicleCount;
  switch (code) {
    case 'capacity_exceeded':
      return `Its load is more than any of the ${n} vehicles can carry.`;
    case 'skills_missing':
      return `None of the ${n} vehicles has every skill it needs.`;
    case 'time_window_unreachable':
      return `None of the ${n} vehicles can ${REACH}.`;
    case 'no_vehicle_fits': {
      const clauses = (['skills_missing', 'capacity_exceeded', 'time_window_unreachable'] as const).flatMap((rule) => {
        const vehicles = why.ruledOut[rule];
        return vehicles && vehicles.length > 0 ? [clause(rule, vehicles)] : [];
      });
      if (why.noStops.length > 0) clauses.push(`${vehicleList(why.noStops)} ${why.noStops.length === 1 ? 'takes' : 'take'} no stops`);
      return `No single vehicle can serve it on a route of its own: ${clauses.join('; ')} (vehicles numbered as in the request).`;
    }
    case 'no_room':
      return 'A vehicle of the preview could serve it on a route of its own, but it does not fit beside the orders on the routes found.';
  }
};
