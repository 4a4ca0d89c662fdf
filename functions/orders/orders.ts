import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, VersionMismatchError, type FieldIssue } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { newId } from '../../shared/ids.ts';
import { tenantPk } from '../../shared/table/keys.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { cancelGuideWrites, neverSubmitted } from '../invoicing/guides/cancel-guides.ts';
import { orderGuideIntents } from '../invoicing/guides/order-guard.ts';
import { InvalidOrderError } from './errors.ts';
import { releaseDeadAssignment } from './assignment-holds.ts';
import { finishReleases } from './route-release.ts';
import { resolveGoods, type Goods } from './goods.ts';
import { checkOrderPlanning, resolvePlanning } from './planning.ts';
import { getOrderRecord, orderItem, resolveOrders, toOrder, toOrderRecord, type OrderRecord } from './records.ts';
import type { CreateOrderBody, Order } from './schemas.ts';
import { newTrackingToken } from './tracking-token.ts';

/** The goods' problems and the planning fields' are reported together, as one 422 invalid_order. */
const checkedGoods = async (tenantId: string, body: CreateOrderBody, planningIssues: FieldIssue[]): Promise<Goods> => {
  let goods: Goods;
  try {
    goods = await resolveGoods(tenantId, body);
  } catch (error) {
    if (!(error instanceof InvalidOrderError) || planningIssues.length === 0) throw error;
    throw new InvalidOrderError(error.message, [...((error.extensions.errors as FieldIssue[] | undefined) ?? []), ...planningIssues]);
  }
  if (planningIssues.length > 0) throw new InvalidOrderError('The order’s time windows, service minutes, load or skills are not acceptable; errors names each field.', planningIssues);
  return goods;
};

export const createOrder = async (tenantId: string, body: CreateOrderBody, now: Date, baseUrl: string): Promise<{ order: Order; writes: Write[] }> => {
  const checked = checkOrderPlanning(body);
  const goods = await checkedGoods(tenantId, body, checked.issues);
  const planning = await resolvePlanning(tenantId, checked.planning);
  const at = nowIso(now);
  const record: OrderRecord = {
    id: newId(),
    reference: body.reference,
    recipient: { name: body.recipient.name, phone: body.recipient.phone ?? null, email: body.recipient.email ?? null },
    address: body.address,
    serviceDate: body.serviceDate,
    ...goods,
    ...planning,
    state: 'pending',
    trackingToken: newTrackingToken(),
    routeId: null,
    stopId: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    cancelledAt: null,
  };
  const event = outboxEvent(tenantId, 'distribution.order.created', { orderId: record.id, reference: record.reference, state: record.state }, now);
  return {
    order: toOrder(record, baseUrl),
    writes: [
      { item: { Put: { TableName: tableName(), Item: orderItem(tenantId, record), ConditionExpression: 'attribute_not_exists(pk)' } } },
      event.write,
    ],
  };
};

/** Each order with goods shows its latest guide (decisions 16), read from its guard and the intent it names. */
const withGuides = async (tenantId: string, orders: Order[]): Promise<Order[]> => {
  const withGoods = orders.filter((o) => o.lines.length > 0).map((o) => o.id);
  if (withGoods.length === 0) return orders;
  const guides = await orderGuideIntents(tenantId, withGoods);
  return orders.map((order) => {
    const guide = guides.get(order.id);
    return guide ? { ...order, dispatchGuide: { intentId: guide.id, number: guide.documentNumber ?? null, localState: guide.localState, routeId: guide.routeId ?? null, stopId: guide.stopId ?? null } } : order;
  });
};

export const getOrder = async (tenantId: string, orderId: string, baseUrl: string): Promise<Order> =>
  (await withGuides(tenantId, [toOrder(await getOrderRecord(tenantId, orderId), baseUrl)]))[0]!;

export const listOrders = async (tenantId: string, page: { after?: string; limit: number }, baseUrl: string): Promise<Page<Order>> => {
  const stored = await queryPage({ pk: tenantPk(tenantId), prefix: opsKeys.orderPrefix, after: page.after, limit: page.limit }, toOrderRecord, (o) => o.id);
  return { items: await withGuides(tenantId, (await resolveOrders(tenantId, stored.items)).map((o) => toOrder(o, baseUrl))), nextCursor: stored.nextCursor };
};

/** The version-checked write of an order's new state, shared by cancel and the field actions. */
export const orderStateWrite = (tenantId: string, next: OrderRecord, expected: { version?: number; state: string }): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: orderItem(tenantId, next),
      ConditionExpression: expected.version === undefined ? 'attribute_exists(pk) AND #state = :state' : 'attribute_exists(pk) AND #state = :state AND version = :version',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': expected.state, ...(expected.version === undefined ? {} : { ':version': expected.version }) },
    },
  },
  onConditionFailed: (old) => {
    if (!old) return new NotFoundError('No order with this id.');
    if (expected.version !== undefined && old.version !== expected.version) return new VersionMismatchError(old.version as number, expected.version);
    return new StateConflictError(`The order is ${old.state as string} now; reload it and try again.`);
  },
});

/**
 * Cancels a pending order, or one on a route whose stop has no outcome yet: the stop is
 * cancelled in the same transaction, so the driver can no longer deliver it, and so is its
 * dispatch guide if it never reached the provider (one that may have stays, and shows on the order).
 */
export const cancelOrder = async (tenantId: string, orderId: string, version: number, now: Date, baseUrl: string): Promise<{ order: Order; writes: Write[] }> => {
  const current = await getOrderRecord(tenantId, orderId);
  if (current.heldBy) {
    // An assignment that died midway holds it: roll that back first (409 while it is alive).
    await releaseDeadAssignment(tenantId, current.heldBy, newId(), now);
    throw new ReadOutdatedError();
  }
  if (current.releasedFrom) {
    // Its route was cancelled and has not written it back yet: write it back, then cancel it.
    await finishReleases(tenantId, [current]);
    throw new ReadOutdatedError();
  }
  if (current.version !== version) throw new VersionMismatchError(current.version, version);
  if (current.state !== 'pending' && current.state !== 'assigned') throw new StateConflictError(`An order that is ${current.state} cannot be cancelled.`);
  const at = nowIso(now);
  const next: OrderRecord = { ...current, state: 'cancelled', version: current.version + 1, updatedAt: at, cancelledAt: at };
  const writes: Write[] = [orderStateWrite(tenantId, next, { version, state: current.state })];
  if (current.state === 'assigned' && current.routeId && current.stopId) {
    writes.push({
      item: {
        Update: {
          TableName: tableName(),
          Key: opsKeys.stop(tenantId, current.routeId, current.stopId),
          UpdateExpression: 'SET #state = :cancelled, outcomeAt = :at, version = version + :one',
          ConditionExpression: '#state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':cancelled': 'cancelled', ':pending': 'pending', ':at': at, ':one': 1 },
        },
      },
      onConditionFailed: (stop) => new StateConflictError(`The order's stop is already ${(stop?.state as string) ?? 'gone'}; it cannot be cancelled.`),
    });
  }
  // Its guide goes with it unless it may be at the provider (decisions 16); a worker that commits `submitting` first wins, and this runs again.
  const guide = current.lines.length > 0 ? (await orderGuideIntents(tenantId, [current.id])).get(current.id) : undefined;
  const cancelsGuide = guide !== undefined && neverSubmitted(guide);
  if (cancelsGuide) writes.push(...(await cancelGuideWrites(guide, now)));
  writes.push(outboxEvent(tenantId, 'distribution.order.cancelled', { orderId: next.id, reference: next.reference, state: next.state }, now).write);
  const shown = guide && { intentId: guide.id, number: guide.documentNumber ?? null, localState: cancelsGuide ? 'cancelled' : guide.localState, routeId: guide.routeId ?? null, stopId: guide.stopId ?? null };
  return { order: { ...toOrder(next, baseUrl), dispatchGuide: shown ?? null }, writes };
};
