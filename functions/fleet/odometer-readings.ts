import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { addDaysTo } from '../../shared/calendar.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { getCareItem, tenantDay } from './care.ts';
import type { OdometerReading } from './care-schemas.ts';
import { addReading, type OdometerDigest } from './odometer-digest.ts';
import { getVehicle } from './vehicles.ts';

const READING_PREFIX = 'R#';

/** Readings stored before corrections existed have no recordedBy and a recordedAt for createdAt. */
const toReading = (item: Record<string, unknown>): OdometerReading => ({
  readingId: item.readingId as string,
  km: item.km as number,
  readAt: item.readAt as string,
  recordedBy: (item.recordedBy as string | undefined) ?? null,
  createdAt: (item.createdAt ?? item.recordedAt) as string,
});

/**
 * The reading's sort key by its id: the reference item written with it, or for a reading stored
 * before references existed, a look through the vehicle's own partition.
 */
const findReading = async (tenantId: string, vehicleId: string, readingId: string): Promise<Record<string, unknown> | undefined> => {
  const partition = keys.odometerPartition(tenantId, vehicleId);
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.odometerReadingRef(tenantId, vehicleId, readingId), ConsistentRead: true }));
  if (Item) return (await table().send(new GetCommand({ TableName: tableName(), Key: keys.odometerReading(tenantId, vehicleId, Item.readAt, readingId), ConsistentRead: true }))).Item;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        FilterExpression: 'readingId = :id',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': READING_PREFIX, ':id': readingId },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    if (page.Items?.[0]) return page.Items[0];
    start = page.LastEvaluatedKey;
  } while (start);
  return undefined;
};

/** A page of the vehicle's readings, newest readAt first; `before` is the last readingId seen. */
export const listReadings = async (tenantId: string, vehicleId: string, query: { before?: string; limit: number }): Promise<Page<OdometerReading>> => {
  await getVehicle(tenantId, vehicleId);
  const from = query.before ? await findReading(tenantId, vehicleId, query.before) : undefined;
  const after = from ? `${from.readAt as string}#${query.before}` : undefined;
  // A cursor naming a reading deleted since starts over rather than failing: newest first again.
  const page = await queryPage(
    { pk: keys.odometerPartition(tenantId, vehicleId), prefix: READING_PREFIX, after, limit: query.limit, newestFirst: true },
    toReading,
    (r) => r.readingId,
  );
  return page;
};

/** Every reading from `fromIso` on, oldest first. */
const readingsFrom = async (partition: string, fromIso: string): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': partition, ':from': `${READING_PREFIX}${fromIso}` },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};

/** The newest readings, at most two: the newest left when one is taken away. */
const newestTwo = async (partition: string): Promise<Record<string, unknown>[]> =>
  (
    await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': partition, ':prefix': READING_PREFIX },
        ScanIndexForward: false,
        ConsistentRead: true,
        Limit: 2,
      }),
    )
  ).Items ?? [];

/**
 * The digest as if `removed` had never been posted: the window's readings replayed, and the
 * newest reading left as the last one (it may be older than the window). Undefined when none is left.
 */
const digestWithout = async (partition: string, removed: string, today: string, timeZone: string): Promise<OdometerDigest | undefined> => {
  // A day before the window's first day in UTC covers its first local day in any zone.
  const windowItems = await readingsFrom(partition, `${addDaysTo(today, -91)}T00:00:00.000Z`);
  const newest = (await newestTwo(partition)).find((item) => item.readingId !== removed);
  if (!newest) return undefined;
  let digest: OdometerDigest | undefined;
  for (const item of windowItems) {
    if (item.readingId === removed) continue;
    digest = addReading(digest, { km: item.km as number, readAt: item.readAt as string }, today, timeZone);
  }
  return { lastKm: newest.km as number, lastReadAt: newest.readAt as string, days: digest?.days ?? [] };
};

/**
 * Removes a reading and recomputes the odometer digest without it (decisions 11). Nothing to do
 * when it is already gone. The digest is written over the odometer sequence read first, as a
 * reading is: a reading that commits meanwhile bumps it, this write fails, and the request is
 * run afresh (ReadOutdatedError), so neither change is lost.
 */
export const deleteReading = async (tenantId: string, vehicleId: string, readingId: string, now: Date): Promise<{ writes: Write[] } | undefined> => {
  const [, item, day] = await Promise.all([getVehicle(tenantId, vehicleId), getCareItem(tenantId, vehicleId), tenantDay(tenantId, now)]);
  const reading = await findReading(tenantId, vehicleId, readingId);
  if (!reading) return undefined;
  const partition = keys.odometerPartition(tenantId, vehicleId);
  const digest = await digestWithout(partition, readingId, day.today, day.timeZone);
  const seq = item?.odometerSeq ?? 0;
  return {
    writes: [
      { item: { Delete: { TableName: tableName(), Key: { pk: reading.pk, sk: reading.sk } } } },
      { item: { Delete: { TableName: tableName(), Key: keys.odometerReadingRef(tenantId, vehicleId, readingId) } } },
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.care(tenantId, vehicleId),
            UpdateExpression: digest ? 'SET odometer = :digest, odometerSeq = :next' : 'SET odometerSeq = :next REMOVE odometer',
            ConditionExpression: 'odometerSeq = :seq',
            ExpressionAttributeValues: { ':next': seq + 1, ':seq': seq, ...(digest ? { ':digest': digest } : {}) },
          },
        },
        onConditionFailed: () => new ReadOutdatedError(),
      },
    ],
  };
};
