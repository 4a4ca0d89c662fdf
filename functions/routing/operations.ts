import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { depotOperations } from './depot-operations.ts';
import { applyPlanOperation } from './plan-apply-operation.ts';
import { discardPlan } from './plan-discard.ts';
import { approvePlan, createPlan, getPlan } from './plans.ts';
import { previewMapOperation } from './preview-map-operation.ts';
import { previewOperations } from './preview-operations.ts';
import { ApproveBody, CreatePlanBody, PlanVersionBody, RoutePlan } from './schemas.ts';

const tag = 'Routing';

export const createPlanOperation = defineOperation({
  operationId: 'createRoutePlan',
  method: 'POST',
  path: '/v1/routing/plans',
  summary: 'Create a route plan in preview',
  tag,
  permission: 'plans.write',
  idempotent: true,
  // Two requests planning one preview meet on its item: the one that lost runs again and answers preview_already_planned.
  retryOnConflict: true,
  body: CreatePlanBody,
  responses: {
    201: { description: 'The plan, state preview', schema: RoutePlan },
    404: { description: 'No route preview with this previewId' },
    409: {
      description:
        '`preview_not_ready` (with `state`) unless the preview is ready; `preview_outdated` (with `orderIds`) when an order of it is no longer pending or changed after it was asked; `preview_already_planned` (with `planId`): a preview gives one plan',
    },
  },
  handle: async ({ body, caller }) => {
    const { plan, writes } = await createPlan(caller.tenantId, body, caller.now);
    return { status: 201, body: plan, headers: { location: `/v1/routing/plans/${plan.id}` }, writes, resourceId: plan.id };
  },
});

export const getPlanOperation = defineOperation({
  operationId: 'getRoutePlan',
  method: 'GET',
  path: '/v1/routing/plans/{id}',
  summary: 'Read a route plan',
  tag,
  permission: 'plans.read',
  params: IdParams,
  responses: { 200: { description: 'The plan', schema: RoutePlan } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getPlan(caller.tenantId, params.id) }),
});

export const approvePlanOperation = defineOperation({
  operationId: 'approveRoutePlan',
  method: 'POST',
  path: '/v1/routing/plans/{id}/approve',
  summary: 'Approve a route plan in preview',
  tag,
  permission: 'plans.write',
  params: IdParams,
  body: ApproveBody,
  responses: { 200: { description: 'The plan, state approved', schema: RoutePlan } },
  handle: async ({ params, body, caller }) => {
    const { plan, writes } = await approvePlan(caller.tenantId, params.id, body.version, caller.now);
    return { status: 200, body: plan, writes, resourceId: plan.id };
  },
});

export const discardPlanOperation = defineOperation({
  operationId: 'discardRoutePlan',
  method: 'POST',
  path: '/v1/routing/plans/{id}/discard',
  summary: 'Discard a route plan none of whose routes is assigned: its orders are free again',
  tag,
  permission: 'plans.write',
  idempotent: true,
  params: IdParams,
  body: PlanVersionBody,
  responses: {
    200: { description: 'The plan, state discarded; a whole-day preview takes its orders again, and its preview may give a new plan', schema: RoutePlan },
    409: {
      description:
        '`version_mismatch`; `plan_in_use` (with `vehicleRouteIds`): routes of the plan are assigned now (cancel them first; a cancelled one does not count); `invalid_state`: the plan is discarded already',
    },
  },
  handle: async ({ params, body, caller }) => {
    const { plan, writes } = await discardPlan(caller.tenantId, params.id, body.version, caller.now);
    return { status: 200, body: plan, writes, resourceId: plan.id };
  },
});

export const routingOperations = [createPlanOperation, getPlanOperation, approvePlanOperation, discardPlanOperation, applyPlanOperation, ...depotOperations, ...previewOperations, previewMapOperation];
