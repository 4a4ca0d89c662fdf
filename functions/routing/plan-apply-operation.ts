import * as v from 'valibot';
import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams, Uuid } from '../../shared/http/schemas.ts';
import { applyPlan } from './plan-apply.ts';
import { PlanVersionBody } from './schemas.ts';

const AppliedPlan = v.pipe(
  v.object({
    planId: Uuid,
    routes: v.array(
      v.object({
        routeId: Uuid,
        version: v.pipe(v.number(), v.description('The route’s version after the change')),
        addedOrderIds: v.array(Uuid),
        removedOrderIds: v.array(Uuid),
      }),
    ),
    skipped: v.pipe(v.array(Uuid), v.description('Routes that started while the apply ran: left as they were')),
  }),
  v.title('AppliedRoutePlan'),
);

export const applyPlanOperation = defineOperation({
  operationId: 'applyRoutePlan',
  method: 'POST',
  path: '/v1/routing/plans/{id}/apply',
  summary: 'Change the assigned routes an approved plan names, in place, before they leave',
  tag: 'Routing',
  permission: 'plans.write',
  idempotent: true,
  params: IdParams,
  body: PlanVersionBody,
  responses: {
    200: {
      description:
        'Each named route changed in place, all or nothing: stop ids kept, new stops for new orders, removed orders back to pending (or on the plan’s route that now holds them), version + 1, planned arrivals from the plan; a route left with no order is cancelled. The plan shows appliedAt.',
      schema: AppliedPlan,
    },
    409: {
      description:
        '`invalid_state` (the plan is not approved); `plan_applied` (with `appliedAt`); `version_mismatch`; `route_started` (with `routeIds`): a named route is no longer assigned, nothing changed; `route_changed` (with `routeIds`): a named route changed since the preview (another plan applied over it) or is being changed right now, nothing changed',
    },
  },
  handle: async ({ params, body, caller }) => {
    const { answer, plan, writes, afterCommit } = await applyPlan(caller.tenantId, params.id, body.version, caller.now);
    return { status: 200, body: answer, writes, resourceId: plan.id, afterCommit };
  },
});
