import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { StateConflictError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { routeUpdatedEvent } from '../../shared/events/route-updated.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName, table } from '../../shared/table/client.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { assignmentLeaseMs, readClaim, rollBackAssignment, type AssignmentHold } from '../orders/assignment-holds.ts';
import { findStoredOrders, orderItem, resolveOrders, type OrderRecord } from '../orders/records.ts';
import { acquireClaim, fence } from './assignment-chunks.ts';
import { findRoute, newStopRecord, readRoutePartition, routeItem, stopItem, type StopRecord } from './records.ts';
import { settleChange } from './route-change-settle.ts';
import type { RouteChange, Staging } from './route-change-shapes.ts';
import type { RouteRecord } from './schemas.ts';

export type { RouteChange, Staging };

/** A transaction holds 100 items: the claim's fence, the route lock's, and 98 for the stops and orders. */
const ITEMS_PER_CHUNK = 98;

/** The route changed since the plan's preview read it, or another plan is changing it now (decisions 17). */
export class RouteChangedError extends StateConflictError {
  constructor(routeIds: string[], why = 'changed since the plan’s preview was asked') {
    super(`Routes ${why}: ${routeIds.join(', ')}. Ask for a new preview over them.`, 'route_changed');
    this.extensions.routeIds = routeIds;
  }
}

/** An added order is no longer free (cancelled, or taken by another route) since the plan was made. */
class OrderUnavailableError extends StateConflictError {
  constructor(readonly orderIds: string[]) {
    super(`Orders no longer pending: ${orderIds.join(', ')}.`);
    this.extensions.orderIds = orderIds;
  }
}

/** The route started while its change was written: the change is undone and the route named in `skipped`. */
class StartedMeanwhileError extends Error {}


export interface ChangeOutcome {
  routeId: string;
  version: number;
  addedOrderIds: string[];
  removedOrderIds: string[];
}

export type ChangeResult = { kind: 'changed'; outcome: ChangeOutcome; settle: () => Promise<void> } | { kind: 'skipped'; routeId: string };


const lockKey = (tenantId: string, routeId: string) => opsKeys.routeChangeLock(tenantId, routeId);

/** One plan changes a route at a time: a lease, taken over only by the same plan or once it ran out. */
const takeLock = async (change: RouteChange): Promise<void> => {
  const now = change.now.getTime();
  try {
    await table().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...lockKey(change.tenantId, change.routeId), entity: 'route-change-lock', tenantId: change.tenantId, routeId: change.routeId, planId: change.planId, owner: change.token, leaseUntil: now + assignmentLeaseMs() },
        ConditionExpression: 'attribute_not_exists(pk) OR planId = :plan OR leaseUntil < :now',
        ExpressionAttributeValues: { ':plan': change.planId, ':now': now },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new RouteChangedError([change.routeId], 'being changed by another plan right now');
    throw error;
  }
};

const lockFence = (change: RouteChange): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: lockKey(change.tenantId, change.routeId),
      UpdateExpression: 'SET leaseUntil = :lease',
      ConditionExpression: '#owner = :token',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':token': change.token, ':lease': Date.now() + assignmentLeaseMs() },
    },
  },
  onConditionFailed: () => new RouteChangedError([change.routeId], 'being changed by another plan right now'),
});

const dropLock = async (change: RouteChange): Promise<void> => {
  try {
    await table().send(new DeleteCommand({ TableName: tableName(), Key: lockKey(change.tenantId, change.routeId), ConditionExpression: '#owner = :token', ExpressionAttributeNames: { '#owner': 'owner' }, ExpressionAttributeValues: { ':token': change.token } }));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
};

/** Each kept stop takes its new place, each removed one leaves, each new order gets a new stop (ids from the claim, so a retry writes the same items). */
const stage = async (change: RouteChange, current: StopRecord[], stopIdOf: (orderId: string) => string): Promise<Staging> => {
  const { tenantId, routeId, planId, vehicleRouteId } = change;
  const byOrder = new Map(current.map((stop) => [stop.orderId, stop]));
  const target = new Set(change.orderIds);
  const kept = change.orderIds.flatMap((orderId, i) => (byOrder.has(orderId) ? [{ stop: byOrder.get(orderId)!, sequence: i + 1 }] : []));
  const removed = current.filter((stop) => !target.has(stop.orderId));
  const addedIds = change.orderIds.filter((id) => !byOrder.has(id));
  const stored = await findStoredOrders(tenantId, [...addedIds, ...removed.map((s) => s.orderId)]);
  const resolved = new Map((await resolveOrders(tenantId, [...stored.values()])).map((o) => [o.id, o]));
  const ours = (o: OrderRecord | undefined) => o?.hold?.planId === planId && o.hold.routeId === routeId && o.hold.vehicleRouteId === vehicleRouteId;
  const unavailable = addedIds.filter((id) => {
    const order = resolved.get(id);
    if (!order || (order.heldBy && !ours(stored.get(id)))) return true;
    return !(order.state === 'pending' || (order.state === 'assigned' && order.routeId !== null && change.planRoutes.has(order.routeId)));
  });
  if (unavailable.length > 0) throw new OrderUnavailableError(unavailable);
  const added = addedIds.map((orderId) => {
    const order = resolved.get(orderId)!;
    const stop = newStopRecord(order, stopIdOf(orderId), change.orderIds.indexOf(orderId) + 1, change.plannedArrivals[orderId] ?? null);
    return { stop, order, stored: stored.get(orderId)! };
  });
  const leaving = removed.map((s) => stored.get(s.orderId)).filter((o): o is OrderRecord => o !== undefined && o.state === 'assigned' && o.routeId === routeId);
  return { kept, removed, added, leaving };
};

/** The staged writes, two items at most per stop (docs/routing.md, "Changing routes before they leave"). */
const stagedWrites = (change: RouteChange, staging: Staging, at: string): Write[][] => {
  const { tenantId, routeId, planId, vehicleRouteId } = change;
  const ref = { planId, vehicleRouteId };
  const cancelling = change.orderIds.length === 0;
  const ops: Write[][] = [];
  const stopNext = (stopId: string, next: Record<string, unknown>): Write => ({
    item: {
      Update: {
        TableName: tableName(),
        Key: opsKeys.stop(tenantId, routeId, stopId),
        UpdateExpression: 'SET #next = :next',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#next': 'next' },
        ExpressionAttributeValues: { ':next': next },
      },
    },
  });
  for (const { stop, sequence } of staging.kept) ops.push([stopNext(stop.id, { ...ref, sequence, plannedArrivalAt: change.plannedArrivals[stop.orderId] ?? null })]);
  // A route left with no order is cancelled: its stops read removed from the cancel on, as any cancelled route's.
  if (!cancelling) for (const stop of staging.removed) ops.push([stopNext(stop.id, { ...ref, removed: true })]);
  for (const order of staging.leaving) {
    ops.push([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: opsKeys.order(tenantId, order.id),
            UpdateExpression: 'SET releasing = :route, releasingChange = :change',
            ConditionExpression: 'routeId = :route AND #state = :assigned',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':route': routeId, ':assigned': 'assigned', ':change': { ...ref, at } },
          },
        },
        onConditionFailed: () => new OrderUnavailableError([order.id]),
      },
    ]);
  }
  for (const { stop, order, stored } of staging.added) {
    const hold: AssignmentHold = {
      routeId,
      stopId: stop.id,
      planId,
      vehicleRouteId,
      version: order.version,
      updatedAt: order.updatedAt,
      inPlace: true,
      ...(order.state === 'assigned' && order.routeId && order.stopId ? { from: { routeId: order.routeId, stopId: order.stopId } } : {}),
    };
    const moved: OrderRecord = { ...order, state: 'assigned', routeId, stopId: stop.id, version: order.version + 1, updatedAt: at };
    ops.push([
      { item: { Put: { TableName: tableName(), Item: { ...stopItem(tenantId, routeId, stop), stagedFor: ref } } } },
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...orderItem(tenantId, moved), assigning: hold },
            ConditionExpression: 'version = :version OR (assigning.routeId = :route AND assigning.planId = :plan)',
            ExpressionAttributeValues: { ':version': stored.version, ':route': routeId, ':plan': planId },
          },
        },
        onConditionFailed: () => new OrderUnavailableError([order.id]),
      },
    ]);
  }
  const chunks: Write[][] = [];
  let chunk: Write[] = [];
  for (const op of ops) {
    if (chunk.length + op.length > ITEMS_PER_CHUNK) {
      chunks.push(chunk);
      chunk = [];
    }
    chunk.push(...op);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
};

/** After the change stands: its values folded into the items, holds and marks gone, unsent guides of removed stops cancelled (best effort; readers resolve what is left). */
const settleWrites = (change: RouteChange, staging: Staging, at: string) => () => settleChange(change, staging, at);


/**
 * Changes one assigned route in place to the plan's orders, all or nothing (decisions 17): the
 * route lock and the plan route's claim first, the staged stops and order moves in chunks (each
 * fenced by both), then one transaction: the route's next version (or its cancel when no order is
 * left), the claim `assigned` with the outcome, the lock gone and the event. Until that commits
 * every reader sees the route as it was; a route that started meanwhile keeps its old stops
 * (`skipped`), the staged writes undone or ignored.
 */
export const changeRoute = async (change: RouteChange): Promise<ChangeResult> => {
  const { tenantId, routeId, planId, vehicleRouteId, token, now } = change;
  const existing = await readClaim(tenantId, planId, vehicleRouteId);
  if (existing?.state === 'assigned' && existing.routeId === routeId) {
    // A run that died after its change committed: the change stands; its outcome was kept.
    return { kind: 'changed', outcome: existing.outcome as ChangeOutcome, settle: async () => {} };
  }
  const route = await findRoute(tenantId, routeId);
  if (!route || route.state !== 'assigned') return { kind: 'skipped', routeId };
  if (route.version !== change.version) throw new RouteChangedError([routeId]);
  await takeLock(change);
  const { stops } = await readRoutePartition(tenantId, routeId, route.state);
  const current = stops.filter((s) => s.state === 'pending');
  const addedIds = change.orderIds.filter((id) => !current.some((s) => s.orderId === id));
  const claim = await acquireClaim({ tenantId, planId, vehicleRouteId, orderIds: addedIds, fingerprint: change.fingerprint, token, now, routeId, extra: { changesRoute: true } });
  const stopIdOf = (orderId: string) => claim.stopIds[claim.orderIds.indexOf(orderId)];
  const at = nowIso(now);
  try {
    const staging = await stage(change, current, stopIdOf);
    for (const chunk of stagedWrites(change, staging, at)) await commit([fence(tenantId, planId, vehicleRouteId, token, () => Date.now()), lockFence(change), ...chunk]);
    const outcome = await finalWrite(change, route, staging, at);
    return { kind: 'changed', outcome, settle: settleWrites(change, staging, at) };
  } catch (error) {
    // Undo what this run staged: the added orders back from their holds, the claim released.
    await rollBackAssignment(tenantId, planId, vehicleRouteId, token).catch(() => undefined);
    await dropLock(change);
    if (error instanceof StartedMeanwhileError) return { kind: 'skipped', routeId };
    throw error;
  }
};

const finalWrite = async (change: RouteChange, route: RouteRecord, staging: Staging, at: string): Promise<ChangeOutcome> => {
  const { tenantId, routeId, planId, vehicleRouteId, token, now } = change;
  const cancelling = change.orderIds.length === 0;
  const next: RouteRecord = cancelling
    ? { ...route, state: 'cancelled', cancelledAt: at, updatedAt: at, version: route.version + 1 }
    : { ...route, updatedAt: at, version: route.version + 1 };
  const outcome: ChangeOutcome = {
    routeId,
    version: next.version,
    addedOrderIds: staging.added.map((a) => a.order.id),
    removedOrderIds: staging.removed.map((s) => s.orderId),
  };
  const stopsAfter = change.orderIds.map((orderId, i) => ({ orderId, sequence: i + 1, state: 'pending' }));
  const event = cancelling
    ? outboxEvent(tenantId, 'field.route.cancelled', { routeId, serviceDate: route.serviceDate }, now)
    : routeUpdatedEvent(tenantId, { id: routeId, serviceDate: route.serviceDate, version: next.version }, stopsAfter, now, outcome);
  await commit([
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: routeItem(tenantId, next),
          ConditionExpression: 'version = :version AND #state = :assigned',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':version': route.version, ':assigned': 'assigned' },
        },
      },
      onConditionFailed: (old) => (old?.state === 'assigned' ? new RouteChangedError([routeId]) : new StartedMeanwhileError()),
    },
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId),
          UpdateExpression: 'SET #state = :assigned, outcome = :outcome, removedOrderIds = :removed REMOVE leaseUntil, fingerprint',
          ConditionExpression: '#owner = :token AND #state = :assigning',
          ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
          ExpressionAttributeValues: { ':token': token, ':assigning': 'assigning', ':assigned': 'assigned', ':outcome': outcome, ':removed': outcome.removedOrderIds },
        },
      },
      onConditionFailed: () => new RouteChangedError([routeId], 'being changed by another request for this plan'),
    },
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: lockKey(tenantId, routeId),
          ConditionExpression: '#owner = :token',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':token': token },
        },
      },
      onConditionFailed: () => new RouteChangedError([routeId], 'being changed by another plan right now'),
    },
    event.write,
  ]);
  return outcome;
};
