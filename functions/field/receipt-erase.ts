import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds, nowIso } from '../../shared/clock.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { getRouteRecord } from './records.ts';

const read = async (key: { pk: string; sk: string }) => (await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/**
 * decisions 16: an admin erases a stop's receiver before the TTL does. The receipt item keeps
 * its keys, time and TTL, without the name, RUT and place; a receipt held inside an old stop item
 * is removed from it. No writes when there is nothing left to erase (the answer is the same).
 */
export const eraseReceiver = async (tenantId: string, routeId: string, stopId: string, now: Date): Promise<Write[]> => {
  await getRouteRecord(tenantId, routeId);
  const [stop, receipt] = await Promise.all([read(opsKeys.stop(tenantId, routeId, stopId)), read(opsKeys.stopReceipt(tenantId, routeId, stopId))]);
  if (!stop) throw new NotFoundError('No stop with this id on this route.');
  const writes: Write[] = [];
  if (receipt && typeof receipt.name === 'string') {
    writes.push({
      item: {
        Update: {
          TableName: tableName(),
          Key: opsKeys.stopReceipt(tenantId, routeId, stopId),
          // Unconditional: should the TTL delete the item meanwhile, what this leaves expires at once.
          UpdateExpression: 'REMOVE #name, rut, place SET erasedAt = :at, expiresAt = if_not_exists(expiresAt, :now)',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':at': nowIso(now), ':now': epochSeconds(now) },
        },
      },
    });
  }
  if (stop.receivedBy) {
    writes.push({
      item: {
        Update: { TableName: tableName(), Key: opsKeys.stop(tenantId, routeId, stopId), UpdateExpression: 'REMOVE receivedBy', ConditionExpression: 'attribute_exists(pk)' },
      },
    });
  }
  return writes;
};
