import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { OrderLineRecord } from './goods-schemas.ts';
import { storedPlanning } from './planning.ts';
import { holdOf, resolveHolds, type AssignmentHold } from './assignment-holds.ts';
import { resolveReleases } from './route-release.ts';

/** Orders as readers see them: an unfinished assignment's or a cancelled route's changes resolved. */
export const resolveOrders = async (tenantId: string, orders: OrderRecord[]): Promise<OrderRecord[]> => resolveReleases(tenantId, await resolveHolds(tenantId, orders));
import type { Order, OrderState } from './schemas.ts';
import { trackingUrl } from './tracking-token.ts';

export type { OrderLineRecord };

/**
 * The stored order: the public shape plus the link token (the URL is made when answering) and
 * the provider ids of its customer and variants, resolved at create so a guide needs no reads.
 * The planning fields (decisions 15) are spelled out: the preview codes against these names.
 */
export interface OrderRecord extends Omit<Order, 'trackingUrl' | 'dispatchGuide' | 'lines' | 'timeWindows' | 'serviceMinutes' | 'load' | 'skills'> {
  trackingToken: string;
  lines: OrderLineRecord[];
  customerExternalId: string | null;
  /** Ascending, disjoint; empty means any time. */
  timeWindows: { from: string; to: string }[];
  /** Resolved at creation (the tenant's trackingStopMinutes unless given); orders stored before: 5. */
  serviceMinutes: number;
  load: { weightKg: number; volumeM3: number };
  skills: string[];
  /** As stored: the unfinished assignment that moved it (assignment-holds.ts). */
  hold?: AssignmentHold;
  /** As read: the order is pending, but an unfinished assignment holds it; writers must not take it. */
  heldBy?: AssignmentHold;
  /** As stored: the route whose cancel marked it, to be written back to pending (route-release.ts). */
  releasing?: string;
  /** As stored: the plan applied in place that takes it off `releasing` (decisions 17), and when. */
  releasingChange?: { planId: string; vehicleRouteId: string; at: string };
  /** As read: its route was cancelled and it reads pending, though not yet written back. */
  releasedFrom?: string;
}

/** Orders stored before goods existed read as orders without goods. */
const toAddress = (stored: Record<string, unknown>): OrderRecord['address'] => ({
  text: stored.text as string,
  latitude: stored.latitude as number,
  longitude: stored.longitude as number,
  municipality: (stored.municipality as string | null | undefined) ?? null,
  city: (stored.city as string | null | undefined) ?? null,
});

export const toOrderRecord = (item: Record<string, unknown>): OrderRecord => ({
  id: item.orderId as string,
  reference: item.reference as string,
  recipient: item.recipient as OrderRecord['recipient'],
  address: toAddress(item.address as Record<string, unknown>),
  serviceDate: item.serviceDate as string,
  lines: (item.lines as OrderLineRecord[] | undefined) ?? [],
  customerId: (item.customerId as string | undefined) ?? null,
  customerExternalId: (item.customerExternalId as string | undefined) ?? null,
  connectionId: (item.connectionId as string | undefined) ?? null,
  ...storedPlanning(item),
  state: item.state as OrderState,
  trackingToken: item.trackingToken as string,
  routeId: (item.routeId as string | undefined) ?? null,
  stopId: (item.stopId as string | undefined) ?? null,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  cancelledAt: (item.cancelledAt as string | undefined) ?? null,
  hold: holdOf(item),
  releasing: (item.releasing as string | undefined) ?? undefined,
  releasingChange: (item.releasingChange as OrderRecord['releasingChange'] | undefined) ?? undefined,
});

export const toOrder = ({ trackingToken, customerExternalId: _c, lines, hold: _h, heldBy: _b, releasing: _r, releasingChange: _rc, releasedFrom: _f, ...rest }: OrderRecord, baseUrl: string): Order => ({
  ...rest,
  lines: lines.map(({ variantExternalId: _v, ...line }) => line),
  trackingUrl: trackingUrl(trackingToken, baseUrl),
  // Its own item (functions/invoicing/guides/order-guard.ts); the readers that answer an order fill it in.
  dispatchGuide: null,
});

export const orderItem = (tenantId: string, order: OrderRecord) => ({
  ...opsKeys.order(tenantId, order.id),
  ...opsKeys.ordersByDate(tenantId, order.serviceDate, order.id),
  entity: 'order',
  tenantId,
  orderId: order.id,
  reference: order.reference,
  recipient: order.recipient,
  address: order.address,
  serviceDate: order.serviceDate,
  lines: order.lines,
  customerId: order.customerId ?? undefined,
  customerExternalId: order.customerExternalId ?? undefined,
  connectionId: order.connectionId ?? undefined,
  timeWindows: order.timeWindows,
  serviceMinutes: order.serviceMinutes,
  load: order.load,
  skills: order.skills,
  state: order.state,
  trackingToken: order.trackingToken,
  routeId: order.routeId ?? undefined,
  stopId: order.stopId ?? undefined,
  version: order.version,
  createdAt: order.createdAt,
  updatedAt: order.updatedAt,
  cancelledAt: order.cancelledAt ?? undefined,
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
