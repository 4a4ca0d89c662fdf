import { StateConflictError } from '../../shared/errors.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { getTenant } from '../../shared/tenancy/tenants.ts';
import { findConnectionRecord } from '../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../integrations/errors.ts';
import { buildGuideIntent } from '../invoicing/guides/build.ts';
import { cancelGuideWrites, neverSubmitted } from '../invoicing/guides/cancel-guides.ts';
import { claimStop, isIssued, isLive, type StopGuideRecord } from '../invoicing/guides/guard.ts';
import { claimOrder, orderGuideIntents } from '../invoicing/guides/order-guard.ts';
import { insertIntent, type IntentRecord } from '../invoicing/intent-record.ts';
import type { Transfer } from '../invoicing/schemas.ts';
import { findOrders, findStoredOrders, type OrderRecord } from '../orders/records.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import { ReadOutdatedError } from '../../shared/table/transaction.ts';
import type { DispatchGuidesBody } from './dispatch-guide-schemas.ts';
import { destinationIssues, InvalidGuidesError, orderIssues } from './dispatch-guides-rules.ts';
import { getRouteRecord, readRoutePartition, type StopRecord } from './records.ts';
import { requireRouteState, routeStateCheck } from './route-writes.ts';

/** A connection without the guide's document type and shipping types (decisions 14): 409, naming it. */
export class GuideConnectionNotReadyError extends StateConflictError {
  constructor(connectionId: string) {
    super('The connection of an order on this route has no dispatch guide settings (documentTypeIds.dispatchGuide and shippingTypeIds).', 'connection_not_ready');
    this.extensions.connectionId = connectionId;
  }
}

/** decisions 14: a route whose stops with goods lack an issued guide does not start when the tenant requires them. */
export class DispatchGuidesMissingError extends StateConflictError {
  constructor(stopIds: string[]) {
    super(`${stopIds.length} stops with goods have no issued dispatch guide; issue them first.`, 'dispatch_guides_missing');
    this.extensions.stopIds = stopIds;
  }
}

export interface RouteGuideItem {
  stopId: string;
  orderId: string;
  intentId: string;
}

/**
 * Stops per transaction: a new guide takes 4 items (its intent, its stop's item, its order's
 * guard and a check of the order's version) beside the route's check; the request's own
 * transaction also carries its idempotency record and audit entry (24 stops: 99 items). A guide
 * that replaces another route's never-submitted one takes 2 more (that one's cancel), so a chunk
 * is cut by items, not stops. A route of 300 stops makes its guides in 12 chunks and the
 * request's own: the earlier chunks commit first, each whole.
 */
export const GUIDE_CHUNKS = { inRequestItems: 97, perChunkItems: 99 };

/** Guides are made only while the route is assigned: checked again in every chunk's transaction. */
const routeAssignedCheck = (tenantId: string, routeId: string): Write =>
  routeStateCheck(tenantId, routeId, 'assigned', (old) => new StateConflictError(`A route that is ${String(old?.state ?? 'gone')} cannot issue dispatch guides.`));

/**
 * The guide is built from the order as read: an order changed (or cancelled) before the commit
 * fails this, and the request runs again on the order as it is then.
 */
const orderUnchanged = (tenantId: string, order: OrderRecord): Write => ({
  item: {
    ConditionCheck: {
      TableName: tableName(),
      Key: opsKeys.order(tenantId, order.id),
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': order.version },
    },
  },
  onConditionFailed: () => new ReadOutdatedError(),
});

/** What a stop with goods gets: a new guide (replacing `previous`, read dead or never submitted), or the order's live one. */
type StopPlan =
  | { kind: 'new'; stop: StopRecord; order: OrderRecord; previous: IntentRecord | undefined }
  | { kind: 'keep' | 'adopt'; stop: StopRecord; order: OrderRecord; live: IntentRecord };

const planStop = (stop: StopRecord, order: OrderRecord, guide: IntentRecord | undefined, routeId: string): StopPlan => {
  if (!guide) {
    // A guide made before the order's guard existed: the stop's own item still keeps it single.
    if (stop.dispatchGuide && isLive(stop.dispatchGuide)) return { kind: 'keep', stop, order, live: { id: stop.dispatchGuide.intentId, localState: stop.dispatchGuide.localState } as IntentRecord };
    return { kind: 'new', stop, order, previous: undefined };
  }
  if (!isLive(guide)) return { kind: 'new', stop, order, previous: guide };
  if (guide.routeId === routeId && guide.stopId === stop.id) return { kind: 'keep', stop, order, live: guide };
  // Another route's: one nothing of which reached the provider gives way to a guide of this route.
  if (neverSubmitted(guide)) return { kind: 'new', stop, order, previous: guide };
  return { kind: 'adopt', stop, order, live: guide };
};

const stopGuard = (tenantId: string, routeId: string, stop: StopRecord, intent: IntentRecord, plate: string, adopted: boolean): StopGuideRecord => ({
  tenantId,
  routeId,
  stopId: stop.id,
  orderId: stop.orderId,
  intentId: intent.id,
  localState: intent.localState,
  number: intent.documentNumber ?? null,
  plate,
  adopted,
  updatedAt: intent.updatedAt,
});

const hasGoods = (order: OrderRecord | undefined): order is OrderRecord => Boolean(order && order.lines.length > 0 && order.connectionId);
const counts = (stop: StopRecord) => stop.state !== 'cancelled' && stop.state !== 'removed';

/** Every connection of the new guides must be active and hold the guide settings. */
const checkConnections = async (tenantId: string, connectionIds: Set<string>): Promise<void> => {
  for (const id of connectionIds) {
    const connection = await findConnectionRecord(tenantId, id);
    if (!connection || connection.state !== 'active' || !connection.sealedToken) throw new ConnectionRevokedError();
    const settings = connection.issueSettings;
    if (!settings?.documentTypeIds.dispatchGuide || !settings.shippingTypeIds) throw new GuideConnectionNotReadyError(id);
  }
};

/** Groups of writes (each a stop's, never split) in transactions of at most `limit` items, each with the route's check. */
const chunked = (groups: Write[][], limit: number, head: () => Write): Write[][] => {
  const out: Write[][] = [];
  let current: Write[] = [head()];
  for (const group of groups) {
    if (current.length + group.length > limit) {
      out.push(current);
      current = [head()];
    }
    current.push(...group);
  }
  if (current.length > 1) out.push(current);
  return out;
};

/**
 * `POST /v1/field/routes/{id}/dispatch-guides` (decisions 14, 16): one approved guide intent per
 * non-cancelled stop whose order has goods and no live guide, whatever route made it. A new
 * guide commits with its stop's item and its order's guard (both conditional Puts: a second live
 * guide for a stop or an order cannot be written, whoever races) and a check of the order's
 * version, in chunks under the 100-item limit: all but the last here, the last with the
 * request's idempotency record and audit entry. A chunk commits whole or not at all; a stop it
 * made is guarded, so a retry (any key) makes only the rest. A lost race makes the request run
 * again (ReadOutdatedError), and it then finds the winner's guides. An order whose live guide is
 * another route's gets none: the stop shows that one (adopted), unless it was never submitted,
 * which is then cancelled in the new guide's transaction (a worker that took it first wins).
 * Bad input (decisions 16) is one 422 naming every order and field, before anything is written.
 */
export const createRouteGuides = async (
  caller: Caller,
  routeId: string,
  asked: DispatchGuidesBody | Transfer,
  chunks = GUIDE_CHUNKS,
): Promise<{ items: RouteGuideItem[]; writes: Write[]; pending: boolean }> => {
  const { tenantId } = caller;
  const body: DispatchGuidesBody = typeof asked === 'string' ? { transfer: asked } : asked;
  const { transfer } = body;
  const route = await getRouteRecord(tenantId, routeId);
  requireRouteState(route, ['assigned'], 'issue dispatch guides');
  const { stops } = await readRoutePartition(tenantId, routeId);
  const stored = await findStoredOrders(tenantId, stops.filter(counts).map((s) => s.orderId));
  const onRoute = (stop: StopRecord) => {
    const order = stored.get(stop.orderId);
    return order?.state === 'assigned' && order.routeId === routeId && !order.releasing ? order : undefined;
  };
  const withGoods = stops.filter((stop) => counts(stop) && hasGoods(onRoute(stop)));
  const current = await orderGuideIntents(tenantId, withGoods.map((s) => s.orderId));

  const plans = withGoods.map((stop) => planStop(stop, onRoute(stop)!, current.get(stop.orderId), routeId));
  const making = plans.filter((p) => p.kind === 'new');
  const orders = making.map((p) => p.order);
  const connections = new Set(orders.map((o) => o.connectionId!));
  await checkConnections(tenantId, connections);
  const issues = [...(await destinationIssues(tenantId, transfer, body.destinationOfficeId, connections)), ...orderIssues(orders, transfer)];
  if (issues.length > 0) throw new InvalidGuidesError(issues);

  const items: RouteGuideItem[] = [];
  const groups: Write[][] = [];
  let pending = false;
  for (const plan of plans) {
    const { stop, order } = plan;
    const showing = stop.dispatchGuide?.intentId;
    if (plan.kind === 'new') {
      const intent = buildGuideIntent({ tenantId, routeId, stopId: stop.id, order, transfer, destinationOfficeId: body.destinationOfficeId, now: caller.now });
      const guard = stopGuard(tenantId, routeId, stop, intent, route.vehicle.plate, false);
      const replaced = plan.previous && neverSubmitted(plan.previous) ? await cancelGuideWrites(plan.previous, caller.now) : [];
      groups.push([
        orderUnchanged(tenantId, order),
        insertIntent(intent),
        claimStop(guard, showing),
        claimOrder({ tenantId, orderId: order.id, intentId: intent.id, updatedAt: intent.updatedAt }, plan.previous?.id),
        ...replaced,
      ]);
      items.push({ stopId: stop.id, orderId: order.id, intentId: intent.id });
      pending = true;
      continue;
    }
    const live = plan.live;
    items.push({ stopId: stop.id, orderId: order.id, intentId: live.id });
    if (live.localState === 'approved') pending = true;
    // Another route's live guide: this stop shows it (its state read from the intent).
    if (plan.kind === 'adopt' && showing !== live.id) groups.push([claimStop(stopGuard(tenantId, routeId, stop, live, route.vehicle.plate, true), showing)]);
  }
  // The last groups go with the request (its idempotency record and audit entry beside them); the earlier ones commit now.
  const head = () => routeAssignedCheck(tenantId, routeId);
  let cut = groups.length;
  for (let size = 1; cut > 0 && size + groups[cut - 1]!.length <= chunks.inRequestItems; cut--) size += groups[cut - 1]!.length;
  const earlier = chunked(groups.slice(0, cut), chunks.perChunkItems, head);
  const last = cut < groups.length ? [head(), ...groups.slice(cut).flat()] : [];
  for (const chunk of earlier) await commit(chunk);
  return { items, writes: last, pending };
};

/**
 * decisions 14: with the tenant's `dispatchGuidesRequiredToStart`, every non-cancelled stop whose
 * order has goods needs a guide that is issued or provider_recorded.
 */
export const requireDispatchGuides = async (tenantId: string, stops: StopRecord[]): Promise<void> => {
  if (!(await getTenant(tenantId))?.dispatchGuidesRequiredToStart) return;
  const candidates = stops.filter((stop) => counts(stop) && !(stop.dispatchGuide && isIssued(stop.dispatchGuide)));
  if (candidates.length === 0) return;
  const orders = await findOrders(tenantId, candidates.map((stop) => stop.orderId));
  const missing = candidates.filter((stop) => hasGoods(orders.get(stop.orderId))).map((stop) => stop.id);
  if (missing.length > 0) throw new DispatchGuidesMissingError(missing);
};
