import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { addDaysTo } from '../../shared/calendar.ts';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, UnprocessableError } from '../../shared/errors.ts';
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
 * Where a reading is in time, by its id: the reference item written with it (kept, marked
 * removed, when the reading is removed, so a page cursor naming it still works), or for a
 * reading stored before references existed, a look through the part of the vehicle's partition
 * read before they did: every reading posted since has its reference, so an unknown id (a typo,
 * a hostile cursor) costs that fixed slice of old readings, never the vehicle's whole history.
 */
const REFERENCES_SINCE = '2026-11-26T00:00:00.000Z';

const locate = async (tenantId: string, vehicleId: string, readingId: string): Promise<{ readAt: string; removed: boolean } | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.odometerReadingRef(tenantId, vehicleId, readingId), ConsistentRead: true }));
  if (Item) return { readAt: Item.readAt as string, removed: Item.removedAt !== undefined };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        FilterExpression: 'readingId = :id',
        ExpressionAttributeValues: { ':pk': keys.odometerPartition(tenantId, vehicleId), ':first': READING_PREFIX, ':last': `${READING_PREFIX}${REFERENCES_SINCE}`, ':id': readingId },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    const found = page.Items?.[0];
    if (found) return { readAt: found.readAt as string, removed: false };
    start = page.LastEvaluatedKey;
  } while (start);
  return undefined;
};

/** A page of the vehicle's readings, newest readAt first; `before` is the last readingId seen. */
export const listReadings = async (tenantId: string, vehicleId: string, query: { before?: string; limit: number }): Promise<Page<OdometerReading>> => {
  await getVehicle(tenantId, vehicleId);
  const from = query.before ? await locate(tenantId, vehicleId, query.before) : undefined;
  if (query.before && !from) {
    throw new UnprocessableError('before names no reading of this vehicle.', 'unknown_cursor', [{ path: 'query.before', message: 'not a readingId of this vehicle' }]);
  }
  return queryPage(
    { pk: keys.odometerPartition(tenantId, vehicleId), prefix: READING_PREFIX, after: from ? `${from.readAt}#${query.before}` : undefined, limit: query.limit, newestFirst: true },
    toReading,
    (r) => r.readingId,
  );
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
 * when it is already gone (a retry under a new key still answers 204); a reading the vehicle never
 * had, another vehicle's or another tenant's, is 404 and nothing is written, as for destinations. The digest is written over the odometer sequence read first, as a
 * reading is: a reading that commits meanwhile bumps it, this write fails, and the request is
 * run afresh (ReadOutdatedError), so neither change is lost.
 */
export const deleteReading = async (tenantId: string, vehicleId: string, readingId: string, now: Date): Promise<{ writes: Write[] }> => {
  const [, item, day] = await Promise.all([getVehicle(tenantId, vehicleId), getCareItem(tenantId, vehicleId), tenantDay(tenantId, now)]);
  const reading = await locate(tenantId, vehicleId, readingId);
  if (!reading) throw new NotFoundError('This vehicle has no odometer reading with this id.');
  // Already removed (decisions 19): a new key is told so, as for destinations; its own key replays its 204.
  if (reading.removed) throw new NotFoundError('This odometer reading was already removed.');
  const partition = keys.odometerPartition(tenantId, vehicleId);
  const digest = await digestWithout(partition, readingId, day.today, day.timeZone);
  const seq = item?.odometerSeq ?? 0;
  return {
    writes: [
      { item: { Delete: { TableName: tableName(), Key: keys.odometerReading(tenantId, vehicleId, reading.readAt, readingId) } } },
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...keys.odometerReadingRef(tenantId, vehicleId, readingId), entity: 'odometerReadingRef', tenantId, vehicleId, readingId, readAt: reading.readAt, removedAt: nowIso(now) },
          },
        },
      },
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
