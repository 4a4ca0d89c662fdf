import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { StateConflictError, UnprocessableError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { getCareItem, tenantDay } from './care.ts';
import type { OdometerBody, OdometerView } from './care-schemas.ts';
import { addReading, odometerView } from './odometer-digest.ts';
import { getVehicle } from './vehicles.ts';

/** Phones' clocks run a little ahead; the same allowance as route positions. */
const CLOCK_SKEW_MS = 2 * 60_000;

interface Reading {
  km: number;
  readAt: string;
}

/** The reading nearest to `readAt` on one side (a reading at the same instant counts on both). */
const neighbour = async (tenantId: string, vehicleId: string, readAt: string, side: 'before' | 'after'): Promise<Reading | undefined> => {
  const { Items = [] } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: side === 'before' ? 'pk = :pk AND sk BETWEEN :lo AND :hi' : 'pk = :pk AND sk >= :lo',
      ExpressionAttributeValues: side === 'before'
        ? { ':pk': keys.odometerPartition(tenantId, vehicleId), ':lo': 'R#', ':hi': `R#${readAt}#\uffff` }
        : { ':pk': keys.odometerPartition(tenantId, vehicleId), ':lo': `R#${readAt}#` },
      ScanIndexForward: side === 'after',
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return Items[0] as Reading | undefined;
};

const backwards = (message: string) => new UnprocessableError(message, 'odometer_backwards', [{ path: 'body.km', message }]);

/**
 * Records a reading. Readings never go backwards in either direction of time: not below one
 * read earlier, not above one read later. Every reading of the vehicle bumps the care item's
 * odometer sequence with a condition, so two readings racing past the same check cannot both
 * commit (the loser gets 409 and may be sent again with its idempotency key).
 */
export const recordOdometer = async (tenantId: string, vehicleId: string, body: OdometerBody, now: Date): Promise<{ view: OdometerView; writes: Write[] }> => {
  const readAt = new Date(body.readAt).toISOString();
  if (Date.parse(readAt) > now.getTime() + CLOCK_SKEW_MS) {
    throw new UnprocessableError('readAt is in the future.', 'odometer_in_future', [{ path: 'body.readAt', message: 'must not be in the future' }]);
  }
  // The sequence is read before the neighbours: a reading that commits after this read bumps
  // it (so this one fails its condition), and one that committed before is among the neighbours.
  const [, item, day] = await Promise.all([getVehicle(tenantId, vehicleId), getCareItem(tenantId, vehicleId), tenantDay(tenantId, now)]);
  const [before, after] = await Promise.all([neighbour(tenantId, vehicleId, readAt, 'before'), neighbour(tenantId, vehicleId, readAt, 'after')]);
  if (before && body.km < before.km) throw backwards(`must be at least ${before.km}, the reading of ${before.readAt}`);
  if (after && body.km > after.km) throw backwards(`must be at most ${after.km}, the reading of ${after.readAt}`);
  const digest = addReading(item?.odometer, { km: body.km, readAt }, day.today, day.timeZone);
  const seq = item?.odometerSeq ?? 0;
  const readingId = newId();
  const writes: Write[] = [
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.odometerReading(tenantId, vehicleId, readAt, readingId), entity: 'odometerReading', tenantId, vehicleId, readingId, km: body.km, readAt, recordedAt: nowIso(now) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.care(tenantId, vehicleId),
          // The care record of the same item is left as it is.
          UpdateExpression: 'SET entity = :entity, tenantId = :tenantId, vehicleId = :vehicleId, odometer = :digest, odometerSeq = :next',
          ConditionExpression: seq === 0 ? 'attribute_not_exists(odometerSeq)' : 'odometerSeq = :seq',
          ExpressionAttributeValues: { ':entity': 'care', ':tenantId': tenantId, ':vehicleId': vehicleId, ':digest': digest, ':next': seq + 1, ...(seq === 0 ? {} : { ':seq': seq }) },
        },
      },
      onConditionFailed: () => new StateConflictError('Another reading of this vehicle was recorded at the same moment; send this one again.', 'concurrent_update'),
    },
  ];
  return { view: odometerView(digest, day.today, day.timeZone)!, writes };
};
