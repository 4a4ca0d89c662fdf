import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { UnprocessableError } from '../../shared/errors.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';

/** Active connections a tenant may hold (each is imported every hour and may take notices). */
export const MAX_ACTIVE_CONNECTIONS = 20;

export class ConnectionLimitReachedError extends UnprocessableError {
  constructor() {
    super(`A company may have at most ${MAX_ACTIVE_CONNECTIONS} active connections; revoke one first.`, 'connection_limit_reached');
  }
}

/**
 * The count item as stored: `active` undefined before its first count (connections made before
 * the count existed); `changes` is raised by every claim and release, so a claim that counted the
 * connections one by one can tell whether a revoke committed meanwhile.
 */
interface StoredCount {
  active: number | undefined;
  changes: number | undefined;
}

const readCount = async (tenantId: string): Promise<StoredCount> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenantId), ConsistentRead: true }));
  return { active: Item?.active as number | undefined, changes: Item?.changes as number | undefined };
};

/** The tenant's count as stored; undefined before its first change (connections made before the count existed). */
export const storedActiveCount = async (tenantId: string): Promise<number | undefined> => (await readCount(tenantId)).active;

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

/** `changes` as read: unchanged since, or still absent. */
const changesAsRead = (changes: number | undefined) =>
  changes === undefined ? { condition: 'attribute_not_exists(changes)', values: {} } : { condition: 'changes = :changes', values: { ':changes': changes } };

/**
 * Checked before the provider is asked (a refused completion keeps its code unspent), then
 * claimed in the connection's own transaction: a conditional `active + 1` on the tenant's count,
 * so concurrent completions cannot pass the limit together. A count that does not exist yet
 * starts from the connections counted now, on condition that no claim or revoke changed the item
 * since it was read: a revoke that committed between the read and this write would otherwise be
 * counted as active for good (issue 29). The request chain then runs the completion again
 * (`ReadOutdatedError`), which counts afresh.
 */
export const claimConnectionSlot = async (tenantId: string): Promise<Write> => {
  const stored = await readCount(tenantId);
  const start = stored.active ?? (await countActive(tenantId));
  if (start >= MAX_ACTIVE_CONNECTIONS) throw new ConnectionLimitReachedError();
  const onConditionFailed = (current: Record<string, unknown> | undefined) =>
    typeof current?.active === 'number' && current.active >= MAX_ACTIVE_CONNECTIONS ? new ConnectionLimitReachedError() : new ReadOutdatedError();
  if (stored.active !== undefined) {
    return {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.activeConnectionCount(tenantId),
          UpdateExpression: 'SET active = active + :one, changes = if_not_exists(changes, :zero) + :one, entity = :entity',
          ConditionExpression: 'attribute_exists(active) AND active < :max',
          ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':max': MAX_ACTIVE_CONNECTIONS, ':entity': 'activeConnectionCount' },
        },
      },
      onConditionFailed,
    };
  }
  const asRead = changesAsRead(stored.changes);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.activeConnectionCount(tenantId),
        // Another claim that created the count meanwhile counted under this same condition: then this one adds to it.
        UpdateExpression: 'SET active = if_not_exists(active, :start) + :one, changes = if_not_exists(changes, :zero) + :one, entity = :entity',
        ConditionExpression: `(attribute_not_exists(active) AND ${asRead.condition}) OR (attribute_exists(active) AND active < :max)`,
        ExpressionAttributeValues: { ':start': start, ':one': 1, ':zero': 0, ':max': MAX_ACTIVE_CONNECTIONS, ':entity': 'activeConnectionCount', ...asRead.values },
      },
    },
    onConditionFailed,
  };
};

/**
 * The write that goes with a revoke. While the count does not exist it only raises `changes`, so
 * a claim counting the connections meanwhile runs again instead of counting this one. It never
 * takes the count below 0 (a count that drifted, say by a revoke of before this fix, stays at 0
 * rather than letting a 21st connection in); a count changed between the read and the write runs
 * the revoke again.
 */
export const releaseConnectionSlot = async (tenantId: string): Promise<Write[]> => {
  const stored = await readCount(tenantId);
  const asRead = changesAsRead(stored.changes);
  const lower = stored.active !== undefined && stored.active > 0;
  return [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.activeConnectionCount(tenantId),
          UpdateExpression: `SET ${lower ? 'active = active - :one, ' : ''}changes = if_not_exists(changes, :zero) + :one, entity = :entity`,
          ConditionExpression: `${asRead.condition} AND ${stored.active === undefined ? 'attribute_not_exists(active)' : 'active = :active'}`,
          ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':entity': 'activeConnectionCount', ...asRead.values, ...(stored.active === undefined ? {} : { ':active': stored.active }) },
        },
      },
      onConditionFailed: () => new ReadOutdatedError(),
    },
  ];
};
