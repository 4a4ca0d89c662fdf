import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { StateConflictError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { committedChanges } from './assignment-holds.ts';
import { orderItem, type OrderRecord } from './order-record.ts';

/**
 * A route cancelled with more open stops than one transaction holds (docs/long-routes.md): its
 * orders are marked `releasing = routeId` before the route turns `cancelled`, and written back to
 * pending after. Between the two, readers show a marked order that is still `assigned` to that
 * route as the pending order it now is, once the route reads `cancelled`.
 */
const cancelledRoutes = async (tenantId: string, routeIds: string[]): Promise<Map<string, string>> => {
  const found = new Map<string, string>();
  await Promise.all(
    [...new Set(routeIds)].map(async (id) => {
      const { Item } = await table().send(
        new GetCommand({ TableName: tableName(), Key: opsKeys.route(tenantId, id), ConsistentRead: true, ProjectionExpression: '#state, cancelledAt', ExpressionAttributeNames: { '#state': 'state' } }),
      );
      if (Item?.state === 'cancelled') found.set(id, Item.cancelledAt as string);
    }),
  );
  return found;
};

const releasable = (order: OrderRecord): boolean => Boolean(order.releasing && order.state === 'assigned' && order.routeId === order.releasing);

/**
 * Orders as readers must see them: one its cancelled route has not written back yet reads
 * pending, and so does one a plan applied in place took off its route (decisions 17) once that
 * change committed (`releasingChange`, functions/field/route-change.ts).
 */
export const resolveReleases = async (tenantId: string, orders: OrderRecord[]): Promise<OrderRecord[]> => {
  const marked = orders.filter(releasable);
  if (marked.length === 0) return orders;
  const cancelled = await cancelledRoutes(tenantId, marked.map((o) => o.releasing!));
  const changes = marked.filter((o) => o.releasingChange).map((o) => ({ ...o.releasingChange!, routeId: o.releasing! }));
  const committed = await committedChanges(tenantId, changes);
  const releasedAt = (order: OrderRecord): string | undefined => {
    const change = order.releasingChange;
    if (change && committed({ ...change, routeId: order.releasing! })) return change.at;
    return cancelled.get(order.releasing!);
  };
  return orders.map((order) => {
    const at = releasable(order) ? releasedAt(order) : undefined;
    if (at === undefined) return order;
    return { ...order, state: 'pending', routeId: null, stopId: null, version: order.version + 1, updatedAt: at, releasedFrom: order.releasing };
  });
};

/** The write-back of one order, from its stored record; it changes nothing once the order moved on. */
export const releaseWrite = (tenantId: string, stored: OrderRecord, at: string): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: orderItem(tenantId, { ...stored, state: 'pending', routeId: null, stopId: null, version: stored.version + 1, updatedAt: at }),
      ConditionExpression: '#state = :assigned AND releasing = :route AND version = :version',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':assigned': 'assigned', ':route': stored.releasing, ':version': stored.version },
    },
  },
});

/**
 * Writes back the orders read as released (`releasedFrom`) before a writer takes them (a cancel,
 * an assignment); a write-back that finds the order moved on is left: the caller reads again.
 */
export const finishReleases = async (tenantId: string, orders: OrderRecord[]): Promise<void> => {
  await Promise.all(
    orders
      .filter((o) => o.releasedFrom)
      .map(async (o) => {
        const stored: OrderRecord = { ...o, state: 'assigned', routeId: o.releasedFrom!, version: o.version - 1, releasing: o.releasedFrom };
        try {
          await commit([releaseWrite(tenantId, stored, o.updatedAt)]);
        } catch (error) {
          if (!(error instanceof StateConflictError)) throw error;
        }
      }),
  );
};

/**
 * Writes an order marked by the route back to pending; one that moved on meanwhile (delivered,
 * cancelled, taken by another route of a plan applied in place) only loses the mark.
 */
export const releaseOrUnmark = async (tenantId: string, order: OrderRecord, routeId: string, at: string): Promise<void> => {
  try {
    await commit([releaseWrite(tenantId, { ...order, releasing: routeId }, at)]);
  } catch (error) {
    if (!(error instanceof StateConflictError)) throw error;
    await unmarkRelease(tenantId, order.id, routeId);
  }
};

/** A mark left on an order that moved on (delivered, cancelled meanwhile): taken off, best effort. */
export const unmarkRelease = async (tenantId: string, orderId: string, routeId: string): Promise<void> => {
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: opsKeys.order(tenantId, orderId),
        UpdateExpression: 'REMOVE releasing',
        ConditionExpression: 'releasing = :route',
        ExpressionAttributeValues: { ':route': routeId },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};
