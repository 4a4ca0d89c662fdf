import * as v from 'valibot';
import { chileRegionCodes } from '../../shared/chile/regions.ts';
import { UnprocessableError } from '../../shared/errors.ts';
import { DateTime, Uuid, Version } from '../../shared/http/schemas.ts';
import { CapacityInput, VehiclePlanning, VehiclePlanningInput, checkVehiclePlanning, type VehicleCapacity } from './planning.ts';

/** Classes of decisions 11: they pick the technical review, permit and SOAP rules. */
export const vehicleClasses = ['car', 'van', 'cargo', 'passenger'] as const;
export type VehicleClass = (typeof vehicleClasses)[number];
export const ownerKinds = ['company', 'person'] as const;
export type OwnerKind = (typeof ownerKinds)[number];
export const DEFAULT_CLASS: VehicleClass = 'car';
export const DEFAULT_OWNER_KIND: OwnerKind = 'company';

/** Plates are compared without spaces, hyphens, dots or case: "bb-cc 12" is BBCC12. */
export const normalisePlate = (plate: string): string => plate.replace(/[\s.\-·]/g, '').toUpperCase();

const Plate = v.pipe(
  v.string('must be a string'),
  v.description('1-12 letters and digits, as on the vehicle; spaces, dots, hyphens and case are ignored'),
  v.transform(normalisePlate),
  v.regex(/^[A-Z0-9]{1,12}$/, 'must be 1-12 letters and digits (spaces, dots and hyphens are ignored)'),
);
const Label = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(120, 'must be at most 120 characters'));

export const Vehicle = v.pipe(
  v.object({
    id: Uuid,
    plate: v.pipe(v.string(), v.maxLength(12), v.description('Normalised: upper case, no separators')),
    label: v.pipe(v.string(), v.maxLength(120)),
    active: v.boolean(),
    class: v.picklist(vehicleClasses),
    ownerKind: v.picklist(ownerKinds),
    region: v.pipe(v.picklist(chileRegionCodes), v.description('ISO 3166-2:CL')),
    ...VehiclePlanning,
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
  v.title('Vehicle'),
);
export type Vehicle = v.InferOutput<typeof Vehicle>;

/*
 * class, ownerKind and region are any short string here and checked by the operation: decisions
 * 11 answers an unknown value with 422 naming the field, where a schema failure is a 400.
 */
const Word = (values: readonly string[]) => v.pipe(v.string('must be a string'), v.maxLength(20, 'must be at most 20 characters'), v.description(`One of ${values.join(', ')}`));
const Traits = {
  class: v.optional(Word(vehicleClasses)),
  ownerKind: v.optional(Word(ownerKinds)),
  region: v.optional(Word(chileRegionCodes)),
};

export const CreateVehicleBody = v.strictObject({
  plate: Plate,
  label: Label,
  active: v.optional(v.boolean('must be true or false'), true),
  ...Traits,
  capacity: v.optional(CapacityInput),
  skills: VehiclePlanningInput.skills,
});
export type CreateVehicleBody = v.InferOutput<typeof CreateVehicleBody>;

export const UpdateVehicleBody = v.strictObject({
  version: Version,
  plate: v.optional(Plate),
  label: v.optional(Label),
  active: v.optional(v.boolean('must be true or false')),
  ...Traits,
  capacity: v.optional(v.pipe(CapacityInput, v.description('A member left out keeps its value; null makes it unlimited'))),
  skills: v.optional(v.pipe(VehiclePlanningInput.skills, v.description('Replaces the list'))),
});
export type UpdateVehicleBody = v.InferOutput<typeof UpdateVehicleBody>;

export interface VehicleTraits {
  class?: VehicleClass;
  ownerKind?: OwnerKind;
  region?: string;
  /** A member left out (a PATCH's) keeps the vehicle's value; on create it is null, unlimited. */
  capacity?: Partial<VehicleCapacity>;
  skills?: string[];
}

type TraitsBody = { class?: string; ownerKind?: string; region?: string; capacity?: Partial<Record<keyof VehicleCapacity, number | null>>; skills?: string[] };

/**
 * 422 invalid_vehicle naming each field whose value is not one of its list, and each planning
 * field (capacity, skills) that breaks its rule; the checked traits otherwise.
 */
export const checkTraits = (body: TraitsBody): VehicleTraits => {
  const planning = checkVehiclePlanning(body);
  const errors = (
    [
      ['class', vehicleClasses],
      ['ownerKind', ownerKinds],
      ['region', chileRegionCodes],
    ] as const
  )
    .filter(([field, values]) => body[field] !== undefined && !(values as readonly string[]).includes(body[field]!))
    .map(([field, values]) => ({ path: `body.${field}`, message: `must be one of ${values.join(', ')}` }))
    .concat(planning.issues);
  if (errors.length) throw new UnprocessableError(`Not acceptable: ${errors.map((e) => e.path.slice(5)).join(', ')}.`, 'invalid_vehicle', errors);
  return { class: body.class as VehicleClass | undefined, ownerKind: body.ownerKind as OwnerKind | undefined, region: body.region, ...planning.value };
};
