import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { runInLanes } from '../../shared/lanes.ts';
import { StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { findStoredOrders, type OrderRecord } from '../orders/records.ts';
import { releaseOrUnmark } from '../orders/route-release.ts';
import { cancelGuideIfUnsent } from '../invoicing/guides/cancel-guides.ts';
import { assertMayAct } from './access.ts';
import { getRouteRecord, readRoutePartition, withStops, type StopRecord } from './records.ts';
import { requireRouteState, routeWrite } from './route-writes.ts';
import type { Route, RouteRecord } from './schemas.ts';

/** A transaction holds 100 items: the route's version check and 99 order marks. */
const MARKS_PER_CHUNK = 99;

const routeUnchanged = (tenantId: string, routeId: string, version: number): Write => ({
  item: {
    ConditionCheck: { TableName: tableName(), Key: opsKeys.route(tenantId, routeId), ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': version } },
  },
  onConditionFailed: () => new StateConflictError('The route changed meanwhile; reload it and try again.', 'concurrent_update'),
});

const markWrite = (tenantId: string, routeId: string, order: OrderRecord): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: opsKeys.order(tenantId, order.id),
      UpdateExpression: 'SET releasing = :route',
      ConditionExpression: 'routeId = :route',
      ExpressionAttributeValues: { ':route': routeId },
    },
  },
  onConditionFailed: () => new StateConflictError('An order of the route changed meanwhile; reload the route and try again.', 'concurrent_update'),
});

/**
 * After the route reads cancelled: its open stops' unsent guides cancelled, its open stops removed
 * and its orders pending, as readers already show them. A crash here loses nothing: the orders
 * are written back by their next reader (route-release.ts), and a guide left approved is
 * cancelled by the worker or the reconciler that finds its route cancelled (issue-guides.ts).
 */
const writeBack = async (tenantId: string, routeId: string, open: StopRecord[], orders: OrderRecord[], at: string): Promise<void> => {
  const work: (() => Promise<void>)[] = [
    // Their guides that never reached the provider first (decisions 16); one a worker took meanwhile stays.
    ...open
      .filter((stop) => stop.dispatchGuide?.localState === 'approved')
      .map((stop) => async () => {
        await cancelGuideIfUnsent(tenantId, stop.dispatchGuide!.intentId, new Date(at));
      }),
    ...open.map((stop) => async () => {
      try {
        await table().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: opsKeys.stop(tenantId, routeId, stop.id),
            UpdateExpression: 'SET #state = :removed, version = version + :one',
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':removed': 'removed', ':pending': 'pending', ':one': 1 },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }),
    ...orders.map((order) => () => releaseOrUnmark(tenantId, order, routeId, at)),
  ];
  await runInLanes(work);
};

/**
 * Cancels a route not yet finished; its stops without an outcome are removed and their orders go
 * back to pending, so another plan can take them; outcomes already made stay. A route holds up to
 * 300 stops, more than one transaction: the orders are marked first (in chunks, each under the
 * route's version), the route turns `cancelled` with its event in the request's transaction, and
 * stops and orders are written back after it. From that transaction on, every reader shows them
 * removed and pending (readRoutePartition, route-release.ts), written back or not
 * (docs/long-routes.md).
 */
export const cancelRoute = async (caller: Caller, routeId: string, version: number): Promise<{ route: Route; writes: Write[]; afterCommit: () => Promise<void> }> => {
  const { tenantId } = caller;
  const current = await getRouteRecord(tenantId, routeId);
  assertMayAct(caller, current);
  if (current.version !== version) throw new VersionMismatchError(current.version, version);
  requireRouteState(current, ['assigned', 'started'], 'be cancelled');
  const at = nowIso(caller.now);
  const next: RouteRecord = { ...current, state: 'cancelled', cancelledAt: at, updatedAt: at, version: current.version + 1 };
  const { stops } = await readRoutePartition(tenantId, routeId);
  const open = stops.filter((s) => s.state === 'pending');
  const stored = await findStoredOrders(tenantId, open.map((s) => s.orderId));
  const orders = [...stored.values()].filter((o) => o.state === 'assigned' && o.routeId === routeId);
  for (let i = 0; i < orders.length; i += MARKS_PER_CHUNK) {
    await commit([routeUnchanged(tenantId, routeId, current.version), ...orders.slice(i, i + MARKS_PER_CHUNK).map((o) => markWrite(tenantId, routeId, o))]);
  }
  const settled = stops.map((s) => (s.state === 'pending' ? { ...s, state: 'removed' as const, version: s.version + 1 } : s));
  return {
    route: withStops(next, settled),
    writes: [routeWrite(tenantId, next, current.version, version), outboxEvent(tenantId, 'field.route.cancelled', { routeId, serviceDate: current.serviceDate }, caller.now).write],
    afterCommit: () => writeBack(tenantId, routeId, open, orders, at),
  };
};
