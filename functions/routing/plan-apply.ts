import { nowIso } from '../../shared/clock.ts';
import { IdempotencyInProgressError, NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { fingerprint } from '../../shared/idempotency.ts';
import { newId } from '../../shared/ids.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { findRoute } from '../field/records.ts';
import { changeRoute, RouteChangedError, type ChangeOutcome } from '../field/route-change.ts';
import { AssignmentInProgressError, readClaim } from '../orders/assignment-holds.ts';
import { getPlanRecord, type PlanRecord } from './plans.ts';
import type { RoutePlan } from './schemas.ts';

/** The plan changed its routes already (decisions 17). */
export class PlanAppliedError extends StateConflictError {
  constructor(appliedAt: string) {
    super(`The plan was applied at ${appliedAt}.`, 'plan_applied');
    this.extensions.appliedAt = appliedAt;
  }
}

/** A route the plan changes is no longer `assigned` (started, finished or cancelled): nothing changed. */
export class RouteStartedError extends StateConflictError {
  constructor(routeIds: string[]) {
    super(`Routes no longer assigned: ${routeIds.join(', ')}. Nothing changed; ask for a new preview.`, 'route_started');
    this.extensions.routeIds = routeIds;
  }
}

export interface ApplyAnswer {
  planId: string;
  routes: ChangeOutcome[];
  skipped: string[];
}

/** The plan's route that a named route becomes; one the plan leaves with no order has a name of its own. */
const vehicleRouteOf = (plan: PlanRecord, routeId: string) => plan.routes.find((r) => r.routeId === routeId)?.vehicleRouteId ?? `R-${routeId}`;

/**
 * The plan's claim on the route shows a twin at work: assigning under this body within its lease,
 * or already assigned, which only a request for this plan can have done since this one began.
 */
const twinApplying = async (tenantId: string, planId: string, vehicleRouteId: string, print: string): Promise<boolean> => {
  const claim = await readClaim(tenantId, planId, vehicleRouteId);
  if (!claim) return false;
  return claim.state === 'assigned' || (claim.state === 'assigning' && claim.fingerprint === print && claim.leaseUntil >= Date.now());
};

/**
 * Every named route still assigned at the version the preview read, or applied by this plan already
 * (a retry). A route that moved because a twin of this request changed it is the twin's to finish.
 */
const checkRoutes = async (tenantId: string, plan: PlanRecord, print: string): Promise<void> => {
  const states = await Promise.all(
    plan.changesRoutes.map(async (named) => {
      const claim = await readClaim(tenantId, plan.id, vehicleRouteOf(plan, named.routeId));
      if (claim?.state === 'assigned' && claim.routeId === named.routeId) return 'done';
      const route = await findRoute(tenantId, named.routeId);
      if (!route || route.state !== 'assigned') return 'started';
      return route.version === named.version ? 'ok' : 'changed';
    }),
  );
  const named = (state: string) => plan.changesRoutes.filter((_, i) => states[i] === state).map((r) => r.routeId);
  if (named('started').length > 0) throw new RouteStartedError(named('started'));
  if (named('changed').length > 0) {
    const twins = await Promise.all(named('changed').map((routeId) => twinApplying(tenantId, plan.id, vehicleRouteOf(plan, routeId), print)));
    if (twins.some(Boolean)) throw new IdempotencyInProgressError();
    throw new RouteChangedError(named('changed'));
  }
};

/**
 * decisions 17: an approved plan from a preview over assigned routes changes each of them in
 * place, one after the other, each all or nothing (functions/field/route-change.ts). Routes of the
 * plan with no routeId are left to POST /v1/field/routes. The plan's own write (appliedAt) is
 * the request's transaction; a run that died after some routes changed is finished by its retry:
 * a changed route's claim holds its outcome.
 */
export const applyPlan = async (
  tenantId: string,
  planId: string,
  version: number,
  now: Date,
): Promise<{ answer: ApplyAnswer; plan: RoutePlan; writes: Write[]; afterCommit: () => Promise<void> }> => {
  const record = await getPlanRecord(tenantId, planId);
  const { plannedArrivals, changesRoutes: _c, assignments: _a, ...current } = record;
  if (current.state !== 'approved') throw new StateConflictError(`A plan that is ${current.state} cannot be applied; approve it first.`);
  if (current.appliedAt) throw new PlanAppliedError(current.appliedAt);
  if (current.version !== version) throw new VersionMismatchError(current.version, version);
  const print = fingerprint('POST', `/v1/routing/plans/${planId}/apply`, { version });
  await checkRoutes(tenantId, record, print);

  const planRoutes = new Set(record.changesRoutes.map((r) => r.routeId));
  const routes: ChangeOutcome[] = [];
  const skipped: string[] = [];
  const settles: (() => Promise<void>)[] = [];
  for (const named of record.changesRoutes) {
    const planned = record.routes.find((r) => r.routeId === named.routeId);
    try {
      const result = await changeRoute({
        tenantId,
        planId,
        vehicleRouteId: vehicleRouteOf(record, named.routeId),
        routeId: named.routeId,
        version: named.version,
        orderIds: planned?.orderIds ?? [],
        plannedArrivals,
        planRoutes,
        fingerprint: print,
        token: newId(),
        now,
      });
      if (result.kind === 'skipped') skipped.push(result.routeId);
      else {
        routes.push(result.outcome);
        settles.push(result.settle);
      }
    } catch (error) {
      // A twin of this apply (the same plan and body, a client's retry) took the route over or
      // changed it: that is this request's own change, not another plan's, so the answer is to
      // retry (and be replayed), not a conflict.
      if ((error instanceof RouteChangedError || error instanceof AssignmentInProgressError) && (await twinApplying(tenantId, planId, vehicleRouteOf(record, named.routeId), print))) throw new IdempotencyInProgressError();
      // Before any route changed, the answer is the conflict and nothing changed; after, the
      // routes already changed stand and this one is left as it was.
      if (routes.length === 0 || !(error instanceof StateConflictError)) throw error;
      // Imported here: the operations' module graph must not build the logger on import (the local
      // stack imports every group before it sets LOG_LEVEL; functions/invoicing/reconciler/run.ts).
      const { logger } = await import('../../shared/logger.ts');
      logger.warn('route left out of a plan apply', { planId, routeId: named.routeId, error: error as Error });
      skipped.push(named.routeId);
    }
  }
  const at = nowIso(now);
  const plan: RoutePlan = { ...current, version: current.version + 1, updatedAt: at, appliedAt: at };
  const write: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: opsKeys.plan(tenantId, planId),
        UpdateExpression: 'SET version = :next, updatedAt = :at, appliedAt = :at',
        ConditionExpression: 'version = :version AND #state = :approved AND attribute_not_exists(appliedAt)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':next': plan.version, ':at': at, ':version': version, ':approved': 'approved' },
      },
    },
    onConditionFailed: (old) =>
      !old
        ? new NotFoundError('No route plan with this id.')
        : old.appliedAt
          ? new PlanAppliedError(old.appliedAt as string)
          : old.version !== version
            ? new VersionMismatchError(old.version as number, version)
            : new StateConflictError('The plan changed meanwhile.'),
  };
  const afterCommit = async () => {
    for (const settle of settles) await settle();
  };
  return { answer: { planId, routes, skipped }, plan, writes: [write], afterCommit };
};
