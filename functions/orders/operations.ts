import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams, PageQuery, pageOf } from '../../shared/http/schemas.ts';
import { cancelOrder, createOrder, getOrder, listOrders } from './orders.ts';
import { CancelBody, CreateOrderBody, Order } from './schemas.ts';

const tag = 'Orders';

export const createOrderOperation = defineOperation({
  operationId: 'createOrder',
  method: 'POST',
  path: '/v1/distribution/orders',
  summary: 'Create an order with its tracking link',
  tag,
  permission: 'orders.write',
  idempotent: true,
  body: CreateOrderBody,
  responses: {
    201: { description: 'The order, state pending', schema: Order },
    422: { description: '`invalid_order` (planning fields that break their rules: more than 3 or overlapping `timeWindows`, a window whose `from` is not before its `to` or not HH:MM, `serviceMinutes` outside 0-240 or not whole, a `load` below 0 or with more than 3 decimals, more than 10 `skills` or one outside 1-40 characters; a variant or customer that is not a record of the connection, `connectionId` missing for goods, a quantity or price the provider cannot receive exactly), `connection_not_ready` (the connection is unknown to the tenant or revoked)' },
  },
  handle: async ({ body, caller }) => {
    const { order, writes } = await createOrder(caller.tenantId, body, caller.now, caller.publicBaseUrl);
    return { status: 201, body: order, headers: { location: `/v1/distribution/orders/${order.id}` }, writes, resourceId: order.id };
  },
});

export const listOrdersOperation = defineOperation({
  operationId: 'listOrders',
  method: 'GET',
  path: '/v1/distribution/orders',
  summary: 'List orders',
  tag,
  permission: 'orders.read',
  query: PageQuery,
  responses: { 200: { description: 'A page of orders, oldest first', schema: pageOf(Order) } },
  handle: async ({ query, caller }) => ({ status: 200, body: await listOrders(caller.tenantId, query, caller.publicBaseUrl) }),
});

export const getOrderOperation = defineOperation({
  operationId: 'getOrder',
  method: 'GET',
  path: '/v1/distribution/orders/{id}',
  summary: 'Read an order',
  tag,
  permission: 'orders.read',
  params: IdParams,
  responses: { 200: { description: 'The order', schema: Order } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getOrder(caller.tenantId, params.id, caller.publicBaseUrl) }),
});

export const cancelOrderOperation = defineOperation({
  operationId: 'cancelOrder',
  method: 'POST',
  path: '/v1/distribution/orders/{id}/cancel',
  summary: 'Cancel an order that has no delivery outcome yet',
  tag,
  permission: 'orders.write',
  params: IdParams,
  body: CancelBody,
  responses: { 200: { description: 'The order, state cancelled', schema: Order } },
  handle: async ({ params, body, caller }) => {
    const { order, writes } = await cancelOrder(caller.tenantId, params.id, body.version, caller.now, caller.publicBaseUrl);
    return { status: 200, body: order, writes, resourceId: order.id };
  },
});

export const orderOperations = [createOrderOperation, listOrdersOperation, getOrderOperation, cancelOrderOperation];
