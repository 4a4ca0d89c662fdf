import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { CreateVehicleBody, UpdateVehicleBody, Vehicle } from './schemas.ts';

const toVehicle = (item: Record<string, unknown>): Vehicle => ({
  id: item.vehicleId as string,
  plate: item.plate as string,
  label: item.label as string,
  active: item.active as boolean,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

const vehicleItem = (tenantId: string, vehicle: Vehicle) => ({
  ...keys.vehicle(tenantId, vehicle.id),
  entity: 'vehicle',
  tenantId,
  vehicleId: vehicle.id,
  plate: vehicle.plate,
  label: vehicle.label,
  active: vehicle.active,
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

/** `onPlateTaken`: the error when the plate was claimed between the caller's read and its commit (409 plate_taken unless said). */
export const createVehicle = (tenantId: string, body: CreateVehicleBody, now: Date, onPlateTaken?: () => Error): { vehicle: Vehicle; writes: Write[] } => {
  const at = nowIso(now);
  const vehicle: Vehicle = { id: newId(), plate: body.plate, label: body.label, active: body.active, version: 1, createdAt: at, updatedAt: at };
  return {
    vehicle,
    writes: [
      { item: { Put: { TableName: tableName(), Item: vehicleItem(tenantId, vehicle), ConditionExpression: 'attribute_not_exists(pk)' } } },
      claimPlate(tenantId, vehicle.plate, vehicle.id, onPlateTaken),
    ],
  };
};

export const getVehicle = async (tenantId: string, vehicleId: string): Promise<Vehicle> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.vehicle(tenantId, vehicleId), ConsistentRead: true }));
  if (!Item) throw new NotFoundError('No vehicle with this id.');
  return toVehicle(Item);
};

export const listVehicles = (tenantId: string, page: { after?: string; limit: number }): Promise<Page<Vehicle>> =>
  queryPage({ pk: tenantPk(tenantId), prefix: keys.vehiclePrefix, after: page.after, limit: page.limit }, toVehicle, (v) => v.id);

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

export const updateVehicle = async (tenantId: string, vehicleId: string, body: UpdateVehicleBody, now: Date): Promise<{ vehicle: Vehicle; writes: Write[] }> => {
  const current = await getVehicle(tenantId, vehicleId);
  if (current.version !== body.version) throw new VersionMismatchError(current.version, body.version);
  const vehicle: Vehicle = {
    ...current,
    plate: body.plate ?? current.plate,
    label: body.label ?? current.label,
    active: body.active ?? current.active,
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
