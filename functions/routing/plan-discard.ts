import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { findRoute } from '../field/records.ts';
import { readClaim } from '../orders/assignment-holds.ts';
import { getPreviewItem } from './preview-record.ts';
import { getPlanRecord, type PlanRecord } from './plans.ts';
import type { RoutePlan } from './schemas.ts';

/** A plan with a route on the road (or being assigned) cannot be discarded: its orders are not free. */
export class PlanInUseError extends StateConflictError {
  constructor(vehicleRouteIds: string[]) {
    super(`Routes of this plan are assigned: ${vehicleRouteIds.join(', ')}. Cancel them first.`, 'plan_in_use');
    this.extensions.vehicleRouteIds = vehicleRouteIds;
  }
}

/**
 * The plan's vehicle routes that hold a route now: assigned (by POST /v1/field/routes or by an
 * apply) and not cancelled since, or an assignment still running. A route assigned and later
 * cancelled does not count (decisions 17).
 */
const routesInUse = async (tenantId: string, plan: PlanRecord): Promise<string[]> => {
  const now = Date.now();
  const used = await Promise.all(
    plan.routes.map(async ({ vehicleRouteId }) => {
      const claim = await readClaim(tenantId, plan.id, vehicleRouteId);
      if (!claim || claim.state === 'released') return undefined;
      if (claim.state === 'assigning') return claim.leaseUntil >= now ? vehicleRouteId : undefined;
      const route = await findRoute(tenantId, claim.routeId);
      return route && route.state !== 'cancelled' ? vehicleRouteId : undefined;
    }),
  );
  return used.filter((id): id is string => id !== undefined);
};

/**
 * The preview that gave the plan may give another (decisions 17): its `planId` goes, on condition
 * that it still names this plan. A client-computed plan has no stored preview.
 */
const freePreview = async (tenantId: string, plan: PlanRecord): Promise<Write[]> => {
  try {
    const item = await getPreviewItem(tenantId, plan.previewId);
    if (item.planId !== plan.id) return [];
  } catch (error) {
    if (error instanceof NotFoundError) return [];
    throw error;
  }
  return [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: opsKeys.preview(tenantId, plan.previewId),
          UpdateExpression: 'REMOVE planId',
          ConditionExpression: 'planId = :plan',
          ExpressionAttributeValues: { ':plan': plan.id },
        },
      },
    },
  ];
};

/**
 * decisions 17: a plan in `preview` or `approved` none of whose vehicle routes is assigned now
 * turns `discarded` and holds no orders any more (a whole-day preview takes them again). The
 * write is conditioned on the version and on the count of routes assigned from the plan, which
 * every assignment adds to in its own transaction: one that lands after the read fails this one.
 */
export const discardPlan = async (tenantId: string, planId: string, version: number, now: Date): Promise<{ plan: RoutePlan; writes: Write[] }> => {
  const record = await getPlanRecord(tenantId, planId);
  const { plannedArrivals: _p, changesRoutes: _c, assignments, ...current } = record;
  if (current.version !== version) throw new VersionMismatchError(current.version, version);
  if (current.state === 'discarded') throw new StateConflictError('The plan is discarded already.');
  const inUse = await routesInUse(tenantId, record);
  if (inUse.length > 0) throw new PlanInUseError(inUse);
  const at = nowIso(now);
  const plan: RoutePlan = { ...current, state: 'discarded', version: current.version + 1, updatedAt: at, discardedAt: at };
  const write: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: opsKeys.plan(tenantId, planId),
        UpdateExpression: 'SET #state = :discarded, version = :next, updatedAt = :at, discardedAt = :at',
        ConditionExpression: 'version = :version AND #state IN (:preview, :approved) AND (attribute_not_exists(assignments) OR assignments = :assignments)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':discarded': 'discarded', ':next': plan.version, ':at': at, ':version': version, ':preview': 'preview', ':approved': 'approved', ':assignments': assignments },
      },
    },
    onConditionFailed: (old) =>
      !old
        ? new NotFoundError('No route plan with this id.')
        : old.version !== version
          ? new VersionMismatchError(old.version as number, version)
          : old.state === 'discarded'
            ? new StateConflictError('The plan is discarded already.')
            : new StateConflictError('A route of the plan was assigned meanwhile; read the plan again.', 'plan_in_use'),
  };
  return { plan, writes: [write, ...(await freePreview(tenantId, record))] };
};

/**
 * What every assignment from a plan writes in its own transaction (functions/field/assign.ts):
 * the plan still `approved` (a discard that landed first fails it), and one more route assigned
 * from it (a discard that read before fails on the count).
 */
export const planAssignmentWrite = (tenantId: string, planId: string): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: opsKeys.plan(tenantId, planId),
      UpdateExpression: 'ADD assignments :one',
      ConditionExpression: '#state = :approved',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':one': 1, ':approved': 'approved' },
    },
  },
  onConditionFailed: () => new StateConflictError('Only an approved plan can be assigned; this one was discarded meanwhile.'),
});
