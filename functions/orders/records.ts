import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { OrderLineRecord } from './goods-schemas.ts';
import { resolveHolds } from './assignment-holds.ts';
import { toOrderRecord, type OrderRecord } from './order-record.ts';
import { resolveReleases } from './route-release.ts';

import type { Order } from './schemas.ts';
import { trackingUrl } from './tracking-token.ts';

export type { OrderLineRecord };
export { orderItem, toOrderRecord, type OrderRecord } from './order-record.ts';

/** Orders as readers see them: an unfinished assignment's or a cancelled route's changes resolved. */
export const resolveOrders = async (tenantId: string, orders: OrderRecord[]): Promise<OrderRecord[]> => resolveReleases(tenantId, await resolveHolds(tenantId, orders));

export const toOrder = ({ trackingToken, customerExternalId: _c, lines, hold: _h, heldBy: _b, releasing: _r, releasingChange: _rc, releasedFrom: _f, ...rest }: OrderRecord, baseUrl: string): Order => ({
  ...rest,
  lines: lines.map(({ variantExternalId: _v, ...line }) => line),
  trackingUrl: trackingUrl(trackingToken, baseUrl),
  // Its own item (functions/invoicing/guides/order-guard.ts); the readers that answer an order fill it in.
  dispatchGuide: null,
});

export const findOrder = async (tenantId: string, orderId: string): Promise<OrderRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.order(tenantId, orderId), ConsistentRead: true }));
  return Item ? (await resolveOrders(tenantId, [toOrderRecord(Item)]))[0] : undefined;
};

export const getOrderRecord = async (tenantId: string, orderId: string): Promise<OrderRecord> => {
  const order = await findOrder(tenantId, orderId);
  if (!order) throw new NotFoundError('No order with this id.');
  return order;
};

/** Several orders at once (plans and routes name up to hundreds), as readers see them; missing ones are left out. */
export const findOrders = async (tenantId: string, orderIds: string[]): Promise<Map<string, OrderRecord>> => {
  const stored = await findStoredOrders(tenantId, orderIds);
  return new Map((await resolveOrders(tenantId, [...stored.values()])).map((o) => [o.id, o]));
};

/** Several orders exactly as stored, holds of unfinished assignments included. */
export const findStoredOrders = async (tenantId: string, orderIds: string[]): Promise<Map<string, OrderRecord>> => {
  const found = new Map<string, OrderRecord>();
  const unique = [...new Set(orderIds)];
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Record<string, unknown>[] | undefined = unique.slice(i, i + 100).map((id) => opsKeys.order(tenantId, id));
    while (pending && pending.length > 0) {
      const response = await table().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }));
      for (const item of response.Responses?.[tableName()] ?? []) {
        const order = toOrderRecord(item);
        found.set(order.id, order);
      }
      pending = response.UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return found;
};
