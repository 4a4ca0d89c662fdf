import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { localDate } from '../../shared/calendar.ts';
import { nowIso } from '../../shared/clock.ts';
import { VersionMismatchError } from '../../shared/errors.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { DEFAULT_TIME_ZONE, getTenant } from '../../shared/tenancy/tenants.ts';
import { careList } from './care-rules.ts';
import { MAX_CARE_VEHICLES, type Care, type CareList, type CareVehicle, type PutCareBody } from './care-schemas.ts';
import { odometerView, type OdometerDigest } from './odometer-digest.ts';
import { getVehicle } from './vehicles.ts';
import type { Vehicle } from './schemas.ts';

/** The care item as stored: the care record with its own version, and the odometer digest. */
export interface CareItem {
  care?: Care;
  careVersion?: number;
  careUpdatedAt?: string;
  odometer?: OdometerDigest;
  odometerSeq?: number;
}

export const getCareItem = async (tenantId: string, vehicleId: string): Promise<CareItem | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.care(tenantId, vehicleId), ConsistentRead: true }));
  return Item as CareItem | undefined;
};

/** The tenant's "today" and its zone: dates the tenant's people speak of (decisions 11). */
export const tenantDay = async (tenantId: string, now: Date): Promise<{ today: string; timeZone: string }> => {
  const timeZone = (await getTenant(tenantId))?.timeZone ?? DEFAULT_TIME_ZONE;
  return { today: localDate(now, timeZone), timeZone };
};

/** DynamoDB keeps a map's keys in no order: answer them in the schema's. */
const careOf = (care: Care | undefined): Care | null =>
  care ? { technicalReview: care.technicalReview, circulationPermit: care.circulationPermit, soap: care.soap, service: care.service, serviceKm: care.serviceKm } : null;

const careVehicle = (vehicle: Pick<Vehicle, 'id' | 'label' | 'active'>, item: CareItem | undefined, today: string, timeZone: string): CareVehicle => ({
  vehicleId: vehicle.id,
  label: vehicle.label,
  active: vehicle.active,
  care: careOf(item?.care),
  version: item?.careVersion ?? 0,
  updatedAt: item?.careUpdatedAt ?? null,
  odometer: odometerView(item?.odometer, today, timeZone),
});

export const getVehicleCare = async (tenantId: string, vehicleId: string, now: Date): Promise<CareVehicle> => {
  const [vehicle, item, day] = await Promise.all([getVehicle(tenantId, vehicleId), getCareItem(tenantId, vehicleId), tenantDay(tenantId, now)]);
  return careVehicle(vehicle, item, day.today, day.timeZone);
};

/** Replaces the care record when `version` is its current one (0 before the first write). */
export const putVehicleCare = async (tenantId: string, vehicleId: string, body: PutCareBody, now: Date): Promise<{ entry: CareVehicle; writes: Write[] }> => {
  const [vehicle, item, day] = await Promise.all([getVehicle(tenantId, vehicleId), getCareItem(tenantId, vehicleId), tenantDay(tenantId, now)]);
  const current = item?.careVersion ?? 0;
  if (current !== body.version) throw new VersionMismatchError(current, body.version);
  const { version, ...care } = body;
  const updated: CareItem = { ...item, care, careVersion: version + 1, careUpdatedAt: nowIso(now) };
  const write: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.care(tenantId, vehicleId),
        // The odometer attributes of the same item are left as they are.
        UpdateExpression: 'SET entity = :entity, tenantId = :tenantId, vehicleId = :vehicleId, care = :care, careVersion = :next, careUpdatedAt = :at',
        // The version read above may be stale by now: the write itself checks it.
        ConditionExpression: version === 0 ? 'attribute_not_exists(careVersion)' : 'careVersion = :expected',
        ExpressionAttributeValues: {
          ':entity': 'care',
          ':tenantId': tenantId,
          ':vehicleId': vehicleId,
          ':care': care,
          ':next': updated.careVersion,
          ':at': updated.careUpdatedAt,
          ...(version === 0 ? {} : { ':expected': version }),
        },
      },
    },
    onConditionFailed: (old) => new VersionMismatchError((old?.careVersion as number | undefined) ?? 0, version),
  };
  return { entry: careVehicle(vehicle, updated, day.today, day.timeZone), writes: [write] };
};

/**
 * Up to `max` items under a prefix of the tenant partition, oldest id first, reading as many
 * 1 MB pages as that takes (consistent, so a care change shows in the next list).
 */
const queryUpTo = async (tenantId: string, prefix: string, max: number): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': prefix },
        ExclusiveStartKey: start,
        ConsistentRead: true,
        Limit: max - items.length,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && items.length < max);
  return items;
};

/**
 * The care list: the vehicles (the 1,000 oldest, the specification's limit) and their care
 * items, two Queries side by side. Care items exist only for vehicles and sort by the same
 * UUIDv7 id, so those of the first 1,000 vehicles are among the first 1,000 care items.
 */
export const getCareList = async (tenantId: string, now: Date): Promise<CareList> => {
  const [vehicles, items, day] = await Promise.all([
    queryUpTo(tenantId, keys.vehiclePrefix, MAX_CARE_VEHICLES),
    queryUpTo(tenantId, keys.carePrefix, MAX_CARE_VEHICLES),
    tenantDay(tenantId, now),
  ]);
  const byVehicle = new Map(items.map((item) => [item.vehicleId as string, item as CareItem]));
  const entries = vehicles.map((v) => careVehicle({ id: v.vehicleId as string, label: v.label as string, active: v.active as boolean }, byVehicle.get(v.vehicleId as string), day.today, day.timeZone));
  return careList(entries, day.today, day.timeZone);
};
