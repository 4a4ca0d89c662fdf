import { StateConflictError } from '../../shared/errors.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import { getTenant } from '../../shared/tenancy/tenants.ts';
import { findConnectionRecord } from '../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../integrations/errors.ts';
import { buildGuideIntent } from '../invoicing/guides/build.ts';
import { claimStop, isIssued, isLive } from '../invoicing/guides/guard.ts';
import { insertIntent } from '../invoicing/intent-record.ts';
import type { Transfer } from '../invoicing/schemas.ts';
import { findOrders, type OrderRecord } from '../orders/records.ts';
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
 * Stops per transaction: each takes its intent and its guard (2 items) beside the route's check;
 * the request's own transaction also carries its idempotency record and audit entry (45 stops:
 * 93 items). A route of 300 stops (decisions 15) makes its guides in six chunks of 49 and the
 * request's own 45: the earlier chunks commit first, each whole.
 */
export const GUIDE_CHUNKS = { inRequest: 45, perChunk: 49 };

/** Guides are made only while the route is assigned: checked again in every chunk's transaction. */
const routeAssignedCheck = (tenantId: string, routeId: string): Write =>
  routeStateCheck(tenantId, routeId, 'assigned', (old) => new StateConflictError(`A route that is ${String(old?.state ?? 'gone')} cannot issue dispatch guides.`));

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

/**
 * `POST /v1/field/routes/{id}/dispatch-guides` (decisions 14): one approved guide intent per
 * non-cancelled stop whose order has goods and no live guide. Each intent commits with its
 * stop's guard (a conditional Put: a second live guide for a stop cannot be written, whoever
 * races), in chunks under the 100-item limit: all but the last here, the last with the request's
 * idempotency record and audit entry. A chunk commits whole or not at all; a stop it made is
 * guarded, so a retry (any key) makes only the rest. A lost race makes the request run again
 * (ReadOutdatedError), and it then finds the winner's guides.
 */
export const createRouteGuides = async (
  caller: Caller,
  routeId: string,
  transfer: Transfer,
  chunks = GUIDE_CHUNKS,
): Promise<{ items: RouteGuideItem[]; writes: Write[]; pending: boolean }> => {
  const { tenantId } = caller;
  const route = await getRouteRecord(tenantId, routeId);
  requireRouteState(route, ['assigned'], 'issue dispatch guides');
  const { stops } = await readRoutePartition(tenantId, routeId);
  const orders = await findOrders(tenantId, stops.filter(counts).map((s) => s.orderId));
  const withGoods = stops.filter((stop) => counts(stop) && hasGoods(orders.get(stop.orderId)));
  const needing = withGoods.filter((stop) => !stop.dispatchGuide || !isLive(stop.dispatchGuide));
  await checkConnections(tenantId, new Set(needing.map((stop) => orders.get(stop.orderId)!.connectionId!)));

  const made = new Map<string, string>();
  const pairs: Write[][] = needing.map((stop) => {
    const intent = buildGuideIntent({ tenantId, routeId, stopId: stop.id, order: orders.get(stop.orderId)!, transfer, now: caller.now });
    made.set(stop.id, intent.id);
    const guard = { tenantId, routeId, stopId: stop.id, orderId: stop.orderId, intentId: intent.id, localState: intent.localState, number: null, updatedAt: intent.updatedAt };
    return [insertIntent(intent), claimStop(guard, stop.dispatchGuide?.intentId)];
  });
  // The last chunk goes with the request; the earlier ones commit now, each on its own.
  const last = pairs.slice(Math.max(0, pairs.length - chunks.inRequest));
  const earlier = pairs.slice(0, pairs.length - last.length);
  for (let i = 0; i < earlier.length; i += chunks.perChunk) {
    await commit([routeAssignedCheck(tenantId, routeId), ...earlier.slice(i, i + chunks.perChunk).flat()]);
  }
  const items = withGoods.map((stop) => ({ stopId: stop.id, orderId: stop.orderId, intentId: made.get(stop.id) ?? stop.dispatchGuide!.intentId }));
  const pending = made.size > 0 || withGoods.some((stop) => stop.dispatchGuide?.localState === 'approved');
  return { items, writes: last.length > 0 ? [routeAssignedCheck(tenantId, routeId), ...last.flat()] : [], pending };
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
