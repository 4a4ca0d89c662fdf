import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { DEFAULT_REGION, getTenant } from '../../shared/tenancy/tenants.ts';
import { storedVehiclePlanning, UNLIMITED } from './planning.ts';
import { DEFAULT_CLASS, DEFAULT_OWNER_KIND, type UpdateVehicleBody, type Vehicle, type VehicleTraits } from './schemas.ts';

/** The region a vehicle without one of its own is in: the tenant's (decisions 13). */
export const tenantRegion = async (tenantId: string): Promise<string> => (await getTenant(tenantId))?.region ?? DEFAULT_REGION;

/** Vehicles stored before classes existed, or made by a route assignment, read the defaults. */
const toVehicle = (item: Record<string, unknown>, region: string): Vehicle => ({
  id: item.vehicleId as string,
  plate: item.plate as string,
  label: item.label as string,
  active: item.active as boolean,
  class: (item.class as Vehicle['class'] | undefined) ?? DEFAULT_CLASS,
  ownerKind: (item.ownerKind as Vehicle['ownerKind'] | undefined) ?? DEFAULT_OWNER_KIND,
  region: (item.region as Vehicle['region'] | undefined) ?? (region as Vehicle['region']),
  ...storedVehiclePlanning(item),
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

const vehicleItem = (tenantId: string, vehicle: Omit<Vehicle, 'region'> & { region?: string }) => ({
  ...keys.vehicle(tenantId, vehicle.id),
  entity: 'vehicle',
  tenantId,
  vehicleId: vehicle.id,
  plate: vehicle.plate,
  label: vehicle.label,
  active: vehicle.active,
  class: vehicle.class,
  ownerKind: vehicle.ownerKind,
  region: vehicle.region,
  capacity: vehicle.capacity,
  skills: vehicle.skills,
  version: vehicle.version,
  createdAt: vehicle.createdAt,
  updatedAt: vehicle.updatedAt,
});

const plateTaken = (plate: string) => new StateConflictError(`Another vehicle of this tenant has the plate ${plate}.`, 'plate_taken');

const claimPlate = (tenantId: string, plate: string, vehicleId: string, onTaken: () => Error = () => plateTaken(plate)): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...keys.plate(tenantId, plate), entity: 'plate', tenantId, vehicleId },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  onConditionFailed: onTaken,
});

type NewVehicle = { plate: string; label: string; active: boolean } & VehicleTraits;

/**
 * `onPlateTaken`: the error when the plate was claimed between the caller's read and its commit
 * (409 plate_taken unless said). Without a region the vehicle keeps none and reads the tenant's.
 */
export const createVehicle = (tenantId: string, body: NewVehicle, now: Date, onPlateTaken?: () => Error): { vehicle: Vehicle; writes: Write[] } => {
  const at = nowIso(now);
  const vehicle = {
    id: newId(),
    plate: body.plate,
    label: body.label,
    active: body.active,
    class: body.class ?? DEFAULT_CLASS,
    ownerKind: body.ownerKind ?? DEFAULT_OWNER_KIND,
    region: body.region as Vehicle['region'] | undefined,
    capacity: { ...UNLIMITED, ...body.capacity },
    skills: body.skills ?? [],
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  return {
    vehicle: { ...vehicle, region: vehicle.region ?? DEFAULT_REGION },
    writes: [
      { item: { Put: { TableName: tableName(), Item: vehicleItem(tenantId, vehicle), ConditionExpression: 'attribute_not_exists(pk)' } } },
      claimPlate(tenantId, vehicle.plate, vehicle.id, onPlateTaken),
    ],
  };
};

export const getVehicle = async (tenantId: string, vehicleId: string): Promise<Vehicle> => {
  const [{ Item }, region] = await Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: keys.vehicle(tenantId, vehicleId), ConsistentRead: true })),
    tenantRegion(tenantId),
  ]);
  if (!Item) throw new NotFoundError('No vehicle with this id.');
  return toVehicle(Item, region);
};

export const listVehicles = async (tenantId: string, page: { after?: string; limit: number }): Promise<Page<Vehicle>> => {
  const region = await tenantRegion(tenantId);
  return queryPage({ pk: tenantPk(tenantId), prefix: keys.vehiclePrefix, after: page.after, limit: page.limit }, (item) => toVehicle(item, region), (v) => v.id);
};

/**
 * Several vehicles at once (a preview names up to 100), read consistently in chunks of 100;
 * ids of no vehicle of this tenant are left out.
 */
export const findVehicles = async (tenantId: string, ids: string[]): Promise<Map<string, Vehicle>> => {
  const found = new Map<string, Vehicle>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return found;
  const region = await tenantRegion(tenantId);
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((id) => keys.vehicle(tenantId, id));
    while (pending && pending.length > 0) {
      const response = await table().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of response.Responses?.[tableName()] ?? []) {
        const vehicle = toVehicle(item, region);
        found.set(vehicle.id, vehicle);
      }
      pending = response.UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
};

/** All of a tenant's vehicles, for resolving a plate or label named in free text. */
export const allVehicles = async (tenantId: string): Promise<Vehicle[]> => {
  const vehicles: Vehicle[] = [];
  let after: string | undefined;
  do {
    const page = await listVehicles(tenantId, { after, limit: 100 });
    vehicles.push(...page.items);
    after = page.nextCursor ?? undefined;
  } while (after);
  return vehicles;
};

export const updateVehicle = async (tenantId: string, vehicleId: string, body: Pick<UpdateVehicleBody, 'version' | 'plate' | 'label' | 'active'> & VehicleTraits, now: Date): Promise<{ vehicle: Vehicle; writes: Write[] }> => {
  const current = await getVehicle(tenantId, vehicleId);
  if (current.version !== body.version) throw new VersionMismatchError(current.version, body.version);
  const vehicle: Vehicle = {
    ...current,
    plate: body.plate ?? current.plate,
    label: body.label ?? current.label,
    active: body.active ?? current.active,
    class: body.class ?? current.class,
    ownerKind: body.ownerKind ?? current.ownerKind,
    // A vehicle that read the tenant's region keeps it from now on.
    region: (body.region as Vehicle['region'] | undefined) ?? current.region,
    // A capacity member left out keeps its value; null makes it unlimited.
    capacity: { ...current.capacity, ...body.capacity },
    skills: body.skills ?? current.skills,
    version: current.version + 1,
    updatedAt: nowIso(now),
  };
  const writes: Write[] = [
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: vehicleItem(tenantId, vehicle),
          // The version read above may be stale by now: the write itself checks it.
          ConditionExpression: 'attribute_exists(pk) AND version = :expected',
          ExpressionAttributeValues: { ':expected': body.version },
        },
      },
      onConditionFailed: (old) => (old ? new VersionMismatchError(old.version as number, body.version) : new NotFoundError('No vehicle with this id.')),
    },
  ];
  if (vehicle.plate !== current.plate) {
    writes.push(claimPlate(tenantId, vehicle.plate, vehicle.id));
    writes.push({ item: { Delete: { TableName: tableName(), Key: keys.plate(tenantId, current.plate) } } });
  }
  return { vehicle, writes };
};
