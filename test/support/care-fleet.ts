import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { CareItem } from '../../functions/fleet/care.ts';
import { addReading } from '../../functions/fleet/odometer-digest.ts';
import { createVehicle } from '../../functions/fleet/vehicles.ts';
import { addDaysTo, localDate } from '../../shared/calendar.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';

const zone = 'America/Santiago';

/**
 * A fleet whose every vehicle has all five care items due (four dates within 30 days, serviceKm
 * within 1,000 km of its one reading), written in batches: the vehicles as `createVehicle` makes
 * them, the care items as the care and odometer operations leave them. For the care list's
 * limits test and its benchmark, where 3,000 API calls would only measure the seeding.
 */
export const seedCareFleet = async (tenantId: string, count: number, now = new Date()): Promise<string[]> => {
  const today = localDate(now, zone);
  const readAt = new Date(now.getTime() - 60_000).toISOString();
  const items: Record<string, unknown>[] = [];
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { vehicle, writes } = createVehicle(tenantId, { plate: `SEED${String(i).padStart(5, '0')}`, label: `Móvil ${String(i).padStart(4, '0')}`, active: true }, now);
    ids.push(vehicle.id);
    for (const write of writes) items.push(write.item.Put!.Item!);
    const care: CareItem = {
      care: { technicalReview: addDaysTo(today, 5), circulationPermit: addDaysTo(today, 10), soap: addDaysTo(today, -3), service: addDaysTo(today, 20), serviceKm: 100_000 },
      careVersion: 1,
      careUpdatedAt: now.toISOString(),
      odometer: addReading(undefined, { km: 99_500, readAt }, today, zone),
      odometerSeq: 1,
    };
    items.push({ ...keys.care(tenantId, vehicle.id), entity: 'care', tenantId, vehicleId: vehicle.id, ...care });
  }
  for (let start = 0; start < items.length; start += 25) {
    let pending: Record<string, unknown>[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending as never } }));
      pending = (UnprocessedItems?.[tableName()] ?? []) as Record<string, unknown>[];
    }
  }
  return ids;
};
