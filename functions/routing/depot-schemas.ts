import * as v from 'valibot';
import { DateTime, Latitude, Longitude, Uuid, Version } from '../../shared/http/schemas.ts';

const Text = (max: number) =>
  v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** Where routes of a preview start and end (decisions 15). */
const DepotAddressInput = v.strictObject({ text: Text(300), latitude: Latitude, longitude: Longitude });

export const CreateDepotBody = v.strictObject({
  name: Text(120),
  address: DepotAddressInput,
});
export type CreateDepotBody = v.InferOutput<typeof CreateDepotBody>;

export const UpdateDepotBody = v.strictObject({
  version: Version,
  name: v.optional(Text(120)),
  address: v.optional(v.pipe(DepotAddressInput, v.description('Replaces the whole address'))),
});
export type UpdateDepotBody = v.InferOutput<typeof UpdateDepotBody>;

export const Depot = v.pipe(
  v.object({
    id: Uuid,
    name: v.string(),
    address: v.object({ text: v.string(), latitude: v.number(), longitude: v.number() }),
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
  v.title('Depot'),
);
export type Depot = v.InferOutput<typeof Depot>;
