import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { UnprocessableError } from '../../shared/errors.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import type { Write } from '../../shared/table/transaction.ts';

/** Active connections a tenant may hold (each is imported every hour and may take notices). */
export const MAX_ACTIVE_CONNECTIONS = 20;

export class ConnectionLimitReachedError extends UnprocessableError {
  constructor() {
    super(`A company may have at most ${MAX_ACTIVE_CONNECTIONS} active connections; revoke one first.`, 'connection_limit_reached');
  }
}

/** The tenant's count as stored; undefined before its first change (connections made before the count existed). */
export const storedActiveCount = async (tenantId: string): Promise<number | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenantId), ConsistentRead: true }));
  return Item?.active as number | undefined;
};

/** The active connections counted one by one: only when the stored count does not exist yet. */
const countActive = async (tenantId: string): Promise<number> => {
  let count = 0;
  const items = queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    FilterExpression: '#state = :active',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': keys.providerConnectionPrefix, ':active': 'active' },
    ConsistentRead: true,
  });
  for await (const _ of items) count++;
  return count;
};

/**
 * Checked before the provider is asked (a refused completion keeps its code unspent), then
 * claimed in the connection's own transaction: a conditional `active + 1` on the tenant's count,
 * so concurrent completions cannot pass the limit together. A count that does not exist yet
 * starts from the connections counted now (`if_not_exists` keeps a count another request made
 * meanwhile).
 */
export const claimConnectionSlot = async (tenantId: string): Promise<Write> => {
  const stored = await storedActiveCount(tenantId);
  const start = stored ?? (await countActive(tenantId));
  if (start >= MAX_ACTIVE_CONNECTIONS) throw new ConnectionLimitReachedError();
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.activeConnectionCount(tenantId),
        UpdateExpression: 'SET active = if_not_exists(active, :start) + :one, entity = :entity',
        ConditionExpression: 'attribute_not_exists(active) OR active < :max',
        ExpressionAttributeValues: { ':start': start, ':one': 1, ':max': MAX_ACTIVE_CONNECTIONS, ':entity': 'activeConnectionCount' },
      },
    },
    onConditionFailed: () => new ConnectionLimitReachedError(),
  };
};

/** The write that goes with a revoke; none while the count does not exist (the first claim counts afresh). */
export const releaseConnectionSlot = async (tenantId: string): Promise<Write[]> => {
  if ((await storedActiveCount(tenantId)) === undefined) return [];
  return [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.activeConnectionCount(tenantId),
          UpdateExpression: 'SET active = active - :one',
          ConditionExpression: 'attribute_exists(active)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
    },
  ];
};
