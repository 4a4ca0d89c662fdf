import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { depotOperations } from './depot-operations.ts';
import { approvePlan, createPlan, getPlan } from './plans.ts';
import { previewMapOperation } from './preview-map-operation.ts';
import { previewOperations } from './preview-operations.ts';
import { ApproveBody, CreatePlanBody, RoutePlan } from './schemas.ts';

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

export const routingOperations = [createPlanOperation, getPlanOperation, approvePlanOperation, ...depotOperations, ...previewOperations, previewMapOperation];
