import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams, PageQuery, pageOf } from '../../shared/http/schemas.ts';
import { CreateDepotBody, Depot, UpdateDepotBody } from './depot-schemas.ts';
import { createDepot, getDepot, listDepots, updateDepot } from './depots.ts';

const tag = 'Routing';

export const createDepotOperation = defineOperation({
  operationId: 'createDepot',
  method: 'POST',
  path: '/v1/routing/depots',
  summary: 'Register a depot, where planned routes start and end',
  tag,
  permission: 'depots.write',
  idempotent: true,
  body: CreateDepotBody,
  responses: { 201: { description: 'The depot', schema: Depot } },
  handle: async ({ body, caller }) => {
    const { depot, writes } = createDepot(caller.tenantId, body, caller.now);
    return { status: 201, body: depot, headers: { location: `/v1/routing/depots/${depot.id}` }, writes, resourceId: depot.id };
  },
});

export const listDepotsOperation = defineOperation({
  operationId: 'listDepots',
  method: 'GET',
  path: '/v1/routing/depots',
  summary: 'List depots',
  tag,
  permission: 'depots.read',
  query: PageQuery,
  responses: { 200: { description: 'A page of depots, oldest first', schema: pageOf(Depot) } },
  handle: async ({ query, caller }) => ({ status: 200, body: await listDepots(caller.tenantId, query) }),
});

export const getDepotOperation = defineOperation({
  operationId: 'getDepot',
  method: 'GET',
  path: '/v1/routing/depots/{id}',
  summary: 'Read a depot',
  tag,
  permission: 'depots.read',
  params: IdParams,
  responses: { 200: { description: 'The depot', schema: Depot } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getDepot(caller.tenantId, params.id) }),
});

export const updateDepotOperation = defineOperation({
  operationId: 'updateDepot',
  method: 'PATCH',
  path: '/v1/routing/depots/{id}',
  summary: 'Change a depot’s name or address',
  tag,
  permission: 'depots.write',
  params: IdParams,
  body: UpdateDepotBody,
  responses: { 200: { description: 'The depot after the change', schema: Depot } },
  handle: async ({ params, body, caller }) => {
    const { depot, writes } = await updateDepot(caller.tenantId, params.id, body, caller.now);
    return { status: 200, body: depot, writes, resourceId: depot.id };
  },
});

export const depotOperations = [createDepotOperation, listDepotsOperation, getDepotOperation, updateDepotOperation];
