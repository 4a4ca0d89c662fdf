import * as v from 'valibot';
import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { assignRoute } from './assign.ts';
import { finishRoute, getRoute, recordPosition, startRoute } from './route-actions.ts';
import { cancelRoute } from './route-cancel.ts';
import { AssignRouteBody, CancelRouteBody, DeliverBody, FailBody, PositionBody, Route, RouteWithWarnings, Stop, StopParams } from './schemas.ts';
import { receiptOf, receiversHiddenFrom, withoutReceivers } from './receipt.ts';
import { eraseReceiver } from './receipt-erase.ts';
import { settleStop } from './stop-actions.ts';
import { ResequenceBody, resequenceRoute } from './resequence.ts';
import { dispatchGuidesOperation } from './dispatch-guides-operation.ts';

const tag = 'Field';
const routeResponse = { 200: { description: 'The route with its stops', schema: Route } };
const PositionAccepted = v.pipe(v.object({ accepted: v.pipe(v.boolean(), v.description('false when a newer position was already kept')) }), v.title('PositionAccepted'));

export const assignRouteOperation = defineOperation({
  operationId: 'assignRoute',
  method: 'POST',
  path: '/v1/field/routes',
  summary: 'Assign a route of an approved plan to a driver and a vehicle',
  tag,
  permission: 'routes.write',
  idempotent: true,
  body: AssignRouteBody,
  // Assignments naming one new plate race on its claim; run again, the loser uses the vehicle the winner made.
  retryOnConflict: true,
  responses: {
    201: { description: 'The route, state assigned, with the tenant’s warnings (vehicle documents)', schema: RouteWithWarnings },
    409: {
      description:
        '`route_already_assigned`; `invalid_state` (plan not approved, or an order no longer pending: the assignment wrote nothing, or rolled back what it wrote); `assignment_in_progress` (another request is assigning this planned route, or another route is being assigned one of its orders, right now)',
    },
  },
  handle: async ({ body, caller }) => {
    const { route, writes, afterCommit } = await assignRoute(caller.tenantId, body, caller.now);
    return { status: 201, body: route, headers: { location: `/v1/field/routes/${route.id}` }, writes, resourceId: route.id, afterCommit };
  },
});

export const getRouteOperation = defineOperation({
  operationId: 'getRoute',
  method: 'GET',
  path: '/v1/field/routes/{id}',
  summary: 'Read a route (drivers: their own routes only)',
  tag,
  permission: 'routes.read',
  params: IdParams,
  responses: routeResponse,
  handle: async ({ params, caller }) => {
    const route = await getRoute(caller, params.id);
    // decisions 16: viewers do not see receivers.
    return { status: 200, body: receiversHiddenFrom(caller.member.role) ? withoutReceivers(route) : route };
  },
});

export const startRouteOperation = defineOperation({
  operationId: 'startRoute',
  method: 'POST',
  path: '/v1/field/routes/{id}/start',
  summary: 'Start an assigned route',
  tag,
  permission: 'field.act',
  params: IdParams,
  responses: {
    200: { description: 'The route, state started, with the tenant’s warnings (vehicle documents)', schema: RouteWithWarnings },
    409: { description: '`invalid_state`; `dispatch_guides_missing` (with `stopIds`) when the tenant’s dispatchGuidesRequiredToStart is on and a stop with goods has no issued guide' },
  },
  handle: async ({ params, caller }) => {
    const { route, writes } = await startRoute(caller, params.id);
    return { status: 200, body: route, writes, resourceId: route.id };
  },
});

export const recordPositionOperation = defineOperation({
  operationId: 'recordRoutePosition',
  method: 'POST',
  path: '/v1/field/routes/{id}/positions',
  summary: 'Record the vehicle’s position on a route under way',
  tag,
  permission: 'field.act',
  params: IdParams,
  body: PositionBody,
  // Positions of one route race on its last-position item; the loser is simply older or newer.
  retryOnConflict: true,
  responses: { 202: { description: 'The position was taken (or ignored as older than the last one)', schema: PositionAccepted } },
  handle: async ({ params, body, caller }) => {
    const { accepted, writes } = await recordPosition(caller, params.id, body);
    return { status: 202, body: { accepted }, writes, resourceId: params.id };
  },
});

export const deliverStopOperation = defineOperation({
  operationId: 'deliverStop',
  method: 'POST',
  path: '/v1/field/routes/{id}/stops/{stopId}/deliver',
  summary: 'Record a delivery with its evidence',
  tag,
  permission: 'field.act',
  // A driver's phone retries after a lost answer: the same key replays it instead of a false 409.
  idempotent: true,
  // A resequence writing the route at the same moment: run again rather than answer 409.
  retryOnConflict: true,
  // The receiver's name and RUT stay on the stop alone (decisions 16): a replay answers null there.
  replayOmits: ['receivedBy'],
  params: StopParams,
  body: DeliverBody,
  responses: {
    200: { description: 'The stop, state delivered', schema: Stop },
    422: { description: '`invalid_rut` (receivedBy.rut); `evidence_required` (the route’s verification policy, or a receipt without a `signature` evidence)' },
  },
  handle: async ({ params, body, caller }) => {
    const receivedBy = receiptOf(body.receivedBy);
    const { stop, writes } = await settleStop(caller, params.id, params.stopId, { kind: 'delivered', evidence: body.evidence, receivedBy });
    return { status: 200, body: stop, writes, resourceId: stop.id };
  },
});

export const eraseStopReceiverOperation = defineOperation({
  operationId: 'eraseStopReceiver',
  method: 'DELETE',
  path: '/v1/field/routes/{id}/stops/{stopId}/received-by',
  summary: 'Erase the receiver (name, RUT, place) of a stop’s receipt of goods',
  tag,
  permission: 'receipts.erase',
  idempotent: true,
  params: StopParams,
  responses: {
    204: { description: 'The stop has no receiver any more (also when it had none); the audit entry names the stop, never the receiver' },
    404: { description: 'No such route, or no such stop on it' },
  },
  handle: async ({ params, caller }) => {
    const writes = await eraseReceiver(caller.tenantId, params.id, params.stopId, caller.now);
    return writes.length > 0 ? { status: 204, writes, resourceId: params.stopId } : { status: 204 };
  },
});

export const failStopOperation = defineOperation({
  operationId: 'failStop',
  method: 'POST',
  path: '/v1/field/routes/{id}/stops/{stopId}/fail',
  summary: 'Record that a delivery could not be made',
  tag,
  permission: 'field.act',
  idempotent: true,
  retryOnConflict: true,
  params: StopParams,
  body: FailBody,
  responses: { 200: { description: 'The stop, state failed', schema: Stop } },
  handle: async ({ params, body, caller }) => {
    const { stop, writes } = await settleStop(caller, params.id, params.stopId, { kind: 'failed', evidence: body.evidence, reason: body.reason });
    return { status: 200, body: stop, writes, resourceId: stop.id };
  },
});

export const finishRouteOperation = defineOperation({
  operationId: 'finishRoute',
  method: 'POST',
  path: '/v1/field/routes/{id}/finish',
  summary: 'Finish a route whose stops all have an outcome',
  tag,
  permission: 'field.act',
  params: IdParams,
  responses: routeResponse,
  handle: async ({ params, caller }) => {
    const { route, writes } = await finishRoute(caller, params.id);
    return { status: 200, body: route, writes, resourceId: route.id };
  },
});

export const cancelRouteOperation = defineOperation({
  operationId: 'cancelRoute',
  method: 'POST',
  path: '/v1/field/routes/{id}/cancel',
  summary: 'Cancel a route not yet finished; its open orders return to pending',
  tag,
  permission: 'routes.write',
  params: IdParams,
  body: CancelRouteBody,
  responses: routeResponse,
  handle: async ({ params, body, caller }) => {
    const { route, writes, afterCommit } = await cancelRoute(caller, params.id, body.version);
    return { status: 200, body: route, writes, resourceId: route.id, afterCommit };
  },
});

export const resequenceRouteOperation = defineOperation({
  operationId: 'resequenceRoute',
  method: 'POST',
  path: '/v1/field/routes/{id}/resequence',
  summary: 'Re-order a started route’s open stops from a position: windows kept first, then least time; late stops last',
  tag,
  permission: 'field.act',
  idempotent: true,
  params: IdParams,
  body: ResequenceBody,
  // Two resequences of one route at once: the loser runs again over the winner's order.
  retryOnConflict: true,
  responses: { ...routeResponse, 409: { description: '`invalid_state`: the route is not started' } },
  handle: async ({ params, body, caller }) => {
    const { route, writes } = await resequenceRoute(caller, params.id, body);
    return { status: 200, body: route, writes, resourceId: route.id };
  },
});

export const fieldOperations = [
  assignRouteOperation,
  getRouteOperation,
  startRouteOperation,
  recordPositionOperation,
  deliverStopOperation,
  eraseStopReceiverOperation,
  failStopOperation,
  finishRouteOperation,
  cancelRouteOperation,
  resequenceRouteOperation,
  dispatchGuidesOperation,
];
