import * as v from 'valibot';
import type { FieldIssue } from '../../shared/errors.ts';
import { amountIssue, amountValue, checkSkills } from '../../shared/planning/field-rules.ts';

/** decisions 15: what a vehicle of the registry carries and can do, for route planning. */
export const MAX_VEHICLE_SKILLS = 20;

export interface VehicleCapacity {
  weightKg: number | null;
  volumeM3: number | null;
}

export const UNLIMITED: VehicleCapacity = { weightKg: null, volumeM3: null };

const ruled = '; a value that breaks this is 422 `invalid_vehicle` naming the field';

/* Types here (a wrong type is 400); values judged by checkVehiclePlanning (422), as for class and region. */
const Amount = v.nullable(v.number('must be a number or null'));
export const CapacityInput = v.pipe(
  v.strictObject({ weightKg: v.optional(Amount), volumeM3: v.optional(Amount) }),
  v.description(`Each > 0 with up to 3 decimals (at most 1000000), or null for unlimited; a new vehicle’s member left out is null${ruled}`),
);

export const VehiclePlanningInput = {
  skills: v.optional(
    v.pipe(
      v.array(v.string('must be a string'), 'must be an array of strings'),
      v.description(`0-${MAX_VEHICLE_SKILLS} skills of 1-40 characters (trimmed, compared exactly); a repeated one is kept once${ruled}`),
    ),
  ),
};

/** The planning fields every read of a vehicle shows. */
export const VehiclePlanning = {
  capacity: v.pipe(
    v.object({ weightKg: v.nullable(v.number()), volumeM3: v.nullable(v.number()) }),
    v.description('kg and m³ the vehicle carries; null is unlimited'),
  ),
  skills: v.array(v.string()),
};

/** Vehicles stored before decisions 15 (and those a route assignment made) carry anything and have no skills. */
export const storedVehiclePlanning = (item: Record<string, unknown>): { capacity: VehicleCapacity; skills: string[] } => {
  const stored = item.capacity as Partial<VehicleCapacity> | undefined;
  return { capacity: { weightKg: stored?.weightKg ?? null, volumeM3: stored?.volumeM3 ?? null }, skills: (item.skills as string[] | undefined) ?? [] };
};

/** The capacity and skills a create or a patch names, judged; members left out stay left out. */
export const checkVehiclePlanning = (body: {
  capacity?: Partial<Record<keyof VehicleCapacity, number | null>>;
  skills?: string[];
}): { value: { capacity?: Partial<VehicleCapacity>; skills?: string[] }; issues: FieldIssue[] } => {
  const issues: FieldIssue[] = [];
  const value: { capacity?: Partial<VehicleCapacity>; skills?: string[] } = {};
  if (body.capacity) {
    const capacity: Partial<VehicleCapacity> = {};
    for (const field of ['weightKg', 'volumeM3'] as const) {
      const amount = body.capacity[field];
      if (amount === undefined) continue;
      const issue = amount === null ? null : amountIssue(amount, `body.capacity.${field}`, true);
      if (issue) issues.push(issue);
      capacity[field] = amount === null ? null : amountValue(amount);
    }
    value.capacity = capacity;
  }
  if (body.skills) {
    const skills = checkSkills(body.skills, 'body.skills', MAX_VEHICLE_SKILLS);
    issues.push(...skills.issues);
    value.skills = skills.skills;
  }
  return { value, issues };
};
