import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { findOrders } from '../orders/records.ts';
import { getPreviewItem, toPreview } from './preview-record.ts';
import type { Preview } from './preview-schemas.ts';
import type { PlanRecord } from './plan-record.ts';
import type { PreviewRequest } from './previews/request.ts';
import type { RoutePlan } from './schemas.ts';

/** decisions 15: only a `ready` preview has routes to read, draw or plan. */
export class PreviewNotReadyError extends StateConflictError {
  constructor(state: string) {
    super(`The route preview is ${state}, not ready.`, 'preview_not_ready');
    this.extensions.state = state;
  }
}

/** An order of the preview left `pending` or changed after the preview was asked: its routes no longer hold. */
export class PreviewOutdatedError extends StateConflictError {
  constructor(orderIds: string[]) {
    super(`${orderIds.length} orders of the preview are no longer pending or changed after it was asked; ask for a new preview.`, 'preview_outdated');
    this.extensions.orderIds = orderIds;
  }
}

/** A preview gives at most one plan (decisions 15); the answer names the plan it gave. */
export class PreviewAlreadyPlannedError extends StateConflictError {
  constructor(planId: string | undefined) {
    super('This route preview already gave a plan.', 'preview_already_planned');
    if (planId) this.extensions.planId = planId;
  }
}

const ordersOf = (preview: Preview): string[] => [...preview.routes.flatMap((route) => route.stops.map((stop) => stop.orderId)), ...preview.unassigned.map((u) => u.orderId)];

/**
 * Orders are read, not held in the transaction: a preview names up to 1,000, ten times what one
 * transaction takes. An order that moves on between this read and the commit is caught where
 * it matters, by the route assignment's own pending check.
 */
const checkOrdersUnchanged = async (tenantId: string, preview: Preview, changedRoutes: ReadonlySet<string>): Promise<void> => {
  const ids = ordersOf(preview);
  const orders = await findOrders(tenantId, ids);
  // An order on a route the preview changes is `assigned` to it (decisions 17); every other one is pending.
  const available = (order: { state: string; routeId: string | null }) => order.state === 'pending' || (order.state === 'assigned' && order.routeId !== null && changedRoutes.has(order.routeId));
  const outdated = ids.filter((id) => {
    const order = orders.get(id);
    return !order || !available(order) || order.updatedAt > preview.createdAt;
  });
  if (outdated.length > 0) throw new PreviewOutdatedError(outdated);
};

/**
 * The preview item takes the plan's id in the plan's own transaction, on condition that it is
 * ready and has none yet: of two racing requests with different keys, exactly one commits.
 * `planId` is a stored field beside the public ones; the preview's version does not move.
 */
const claimPreview = (tenantId: string, previewId: string, planId: string): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: opsKeys.preview(tenantId, previewId),
      UpdateExpression: 'SET planId = :planId',
      ConditionExpression: 'attribute_exists(pk) AND #state = :ready AND attribute_not_exists(planId)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':planId': planId, ':ready': 'ready' },
    },
  },
  onConditionFailed: (old) =>
    !old
      ? new NotFoundError('No route preview with this id.')
      : old.state !== 'ready'
        ? new PreviewNotReadyError(old.state as string)
        : new PreviewAlreadyPlannedError(old.planId as string | undefined),
});

/** A plan in `preview` made of a ready preview, with each order's planned arrival, and the claim on the preview. */
export const planOfPreview = async (
  tenantId: string,
  previewId: string,
  now: Date,
): Promise<{ plan: RoutePlan; plannedArrivals: Record<string, string>; changesRoutes: PlanRecord['changesRoutes']; claim: Write }> => {
  const item = await getPreviewItem(tenantId, previewId);
  const preview = toPreview(item);
  if (preview.state !== 'ready') throw new PreviewNotReadyError(preview.state);
  if (item.planId !== undefined) throw new PreviewAlreadyPlannedError(item.planId as string);
  // Previews stored before decisions 17 (or by tests) may hold no request routes.
  const changesRoutes = (item.request as Partial<PreviewRequest> | undefined)?.routes ?? [];
  await checkOrdersUnchanged(tenantId, preview, new Set(changesRoutes.map((r) => r.routeId)));
  const at = nowIso(now);
  const plan: RoutePlan = {
    id: newId(),
    serviceDate: preview.serviceDate,
    state: 'preview',
    previewId: preview.id,
    routes: preview.routes.map((route) => ({ vehicleRouteId: route.vehicleRouteId, routeId: route.routeId, orderIds: route.stops.map((stop) => stop.orderId) })),
    unassignedOrderIds: preview.unassigned.map((u) => u.orderId),
    version: 1,
    createdAt: at,
    updatedAt: at,
    approvedAt: null,
    appliedAt: null,
    discardedAt: null,
  };
  const plannedArrivals = Object.fromEntries(preview.routes.flatMap((route) => route.stops.map((stop) => [stop.orderId, stop.arrivalAt])));
  return { plan, plannedArrivals, changesRoutes, claim: claimPreview(tenantId, preview.id, plan.id) };
};
