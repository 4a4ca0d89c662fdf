import * as v from 'valibot';
import { DateTime, Uuid, Version } from '../../shared/http/schemas.ts';

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
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
  v.title('Vehicle'),
);
export type Vehicle = v.InferOutput<typeof Vehicle>;

export const CreateVehicleBody = v.strictObject({
  plate: Plate,
  label: Label,
  active: v.optional(v.boolean('must be true or false'), true),
});
export type CreateVehicleBody = v.InferOutput<typeof CreateVehicleBody>;

export const UpdateVehicleBody = v.strictObject({
  version: Version,
  plate: v.optional(Plate),
  label: v.optional(Label),
  active: v.optional(v.boolean('must be true or false')),
});
export type UpdateVehicleBody = v.InferOutput<typeof UpdateVehicleBody>;
