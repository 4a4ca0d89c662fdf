import { mayPerform } from '../../shared/auth/roles.ts';
import { defineOperation, type Caller } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { deliveryDetail, getDeliveryRecord, listDeliveries, retryDelivery, testDelivery } from './deliveries.ts';
import { toEndpoint } from './endpoint-record.ts';
import { eventTypeCatalogue } from './event-types.ts';
import { getRecoveryRecord, startRecovery } from './recoveries.ts';
import { toRecovery } from './recovery-record.ts';
import { createEndpoint, deleteEndpoint, getEndpointRecord, listEndpointRecords, rotateSecret, updateEndpoint } from './endpoints.ts';
import {
  CreateEndpointBody,
  Delivery,
  DeliveriesQuery,
  DeliveryDetail,
  DeliveryPage,
  Endpoint,
  EndpointDeliveriesQuery,
  EndpointList,
  EndpointWithSecret,
  EventTypeList,
  RecoverBody,
  Recovery,
  RecoveryParams,
  RotateSecretBody,
  UpdateEndpointBody,
} from './schemas.ts';

const tag = 'Webhooks';

/** Readers who may not manage destinations (operators, viewers) do not see query strings. */
const viewFor = (caller: Caller) => ({ revealQuery: mayPerform(caller.member.role, 'webhooks.manage') });
/** Receivers' answers in the attempt log are for admins (decisions 5). */
const logViewFor = (caller: Caller) => ({ revealExcerpts: mayPerform(caller.member.role, 'webhooks.manage') });
const prefix = '/v1/webhooks';

export const createEndpointOperation = defineOperation({
  operationId: 'createWebhookEndpoint',
  method: 'POST',
  path: `${prefix}/endpoints`,
  summary: 'Register a webhook destination',
  tag,
  permission: 'webhooks.manage',
  requiresMfa: true,
  idempotent: true,
  responseHasSecret: true,
  body: CreateEndpointBody,
  responses: { 201: { description: 'The destination and its signing secret, shown this once', schema: EndpointWithSecret } },
  handle: async ({ body, caller }) => {
    const { record, secret, writes } = await createEndpoint(caller.tenantId, body, caller.now);
    return { status: 201, body: { endpoint: toEndpoint(record, caller.now), secret }, headers: { location: `${prefix}/endpoints/${record.id}` }, writes, resourceId: record.id };
  },
});

export const listEndpointsOperation = defineOperation({
  operationId: 'listWebhookEndpoints',
  method: 'GET',
  path: `${prefix}/endpoints`,
  summary: 'List webhook destinations',
  tag,
  permission: 'webhooks.read',
  responses: { 200: { description: 'Every destination of the tenant, oldest first', schema: EndpointList } },
  handle: async ({ caller }) => ({ status: 200, body: { items: (await listEndpointRecords(caller.tenantId)).map((r) => toEndpoint(r, caller.now, viewFor(caller))) } }),
});

export const getEndpointOperation = defineOperation({
  operationId: 'getWebhookEndpoint',
  method: 'GET',
  path: `${prefix}/endpoints/{id}`,
  summary: 'Read a webhook destination',
  tag,
  permission: 'webhooks.read',
  params: IdParams,
  responses: { 200: { description: 'The destination', schema: Endpoint } },
  handle: async ({ params, caller }) => ({ status: 200, body: toEndpoint(await getEndpointRecord(caller.tenantId, params.id), caller.now, viewFor(caller)) }),
});

export const updateEndpointOperation = defineOperation({
  operationId: 'updateWebhookEndpoint',
  method: 'PATCH',
  path: `${prefix}/endpoints/{id}`,
  summary: 'Change a webhook destination',
  tag,
  permission: 'webhooks.manage',
  params: IdParams,
  body: UpdateEndpointBody,
  responses: { 200: { description: 'The destination after the change', schema: Endpoint } },
  handle: async ({ params, body, caller }) => {
    const { record, writes } = await updateEndpoint(caller.tenantId, params.id, body, caller.now);
    return { status: 200, body: toEndpoint(record, caller.now), writes, resourceId: record.id };
  },
});

export const deleteEndpointOperation = defineOperation({
  operationId: 'deleteWebhookEndpoint',
  method: 'DELETE',
  path: `${prefix}/endpoints/{id}`,
  summary: 'Delete a webhook destination',
  tag,
  permission: 'webhooks.manage',
  requiresMfa: true,
  idempotent: true,
  params: IdParams,
  responses: { 204: { description: 'Deleted: its pending deliveries end dead (destination_deleted), its URL is free, its deliveries stay readable until they expire' } },
  handle: async ({ params, caller }) => ({ status: 204, writes: await deleteEndpoint(caller.tenantId, params.id), resourceId: params.id }),
});

export const rotateSecretOperation = defineOperation({
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: `${prefix}/endpoints/{id}/secrets`,
  summary: 'Rotate a destination’s signing secret',
  tag,
  permission: 'webhooks.manage',
  requiresMfa: true,
  idempotent: true,
  responseHasSecret: true,
  params: IdParams,
  body: RotateSecretBody,
  responses: { 201: { description: 'The destination and its new secret, shown this once', schema: EndpointWithSecret } },
  handle: async ({ params, body, caller }) => {
    const { record, secret, writes } = await rotateSecret(caller.tenantId, params.id, body, caller.now);
    return { status: 201, body: { endpoint: toEndpoint(record, caller.now), secret }, writes, resourceId: record.id };
  },
});

export const testEndpointOperation = defineOperation({
  operationId: 'sendWebhookTest',
  method: 'POST',
  path: `${prefix}/endpoints/{id}/test`,
  summary: 'Send a test notification',
  tag,
  permission: 'webhooks.manage',
  idempotent: true,
  params: IdParams,
  responses: { 202: { description: 'The delivery of the webhook.test event', schema: Delivery } },
  handle: async ({ params, caller }) => {
    const readAt = new Date();
    const record = await getEndpointRecord(caller.tenantId, params.id);
    const { delivery, writes } = testDelivery(caller.tenantId, { record, readAt }, caller.now);
    return { status: 202, body: delivery, writes, resourceId: delivery.id };
  },
});

export const listEndpointDeliveriesOperation = defineOperation({
  operationId: 'listWebhookEndpointDeliveries',
  method: 'GET',
  path: `${prefix}/endpoints/{id}/deliveries`,
  summary: 'List a destination’s deliveries',
  tag,
  permission: 'webhooks.read',
  params: IdParams,
  query: EndpointDeliveriesQuery,
  responses: { 200: { description: 'A page of deliveries, newest first', schema: DeliveryPage } },
  handle: async ({ params, query, caller }) => {
    await getEndpointRecord(caller.tenantId, params.id);
    return { status: 200, body: await listDeliveries(caller.tenantId, { ...query, endpointId: params.id }, caller.now) };
  },
});

export const listDeliveriesOperation = defineOperation({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: `${prefix}/deliveries`,
  summary: 'List deliveries',
  tag,
  permission: 'webhooks.read',
  query: DeliveriesQuery,
  responses: { 200: { description: 'A page of deliveries, newest first', schema: DeliveryPage } },
  handle: async ({ query, caller }) => {
    // Another tenant's destination is a 404 before any of its deliveries is read.
    if (query.endpointId) await getEndpointRecord(caller.tenantId, query.endpointId);
    return { status: 200, body: await listDeliveries(caller.tenantId, query, caller.now) };
  },
});

export const getDeliveryOperation = defineOperation({
  operationId: 'getWebhookDelivery',
  method: 'GET',
  path: `${prefix}/deliveries/{id}`,
  summary: 'Read a delivery with its event and attempts',
  tag,
  permission: 'webhooks.read',
  params: IdParams,
  responses: { 200: { description: 'The delivery, its event and its attempt log', schema: DeliveryDetail } },
  handle: async ({ params, caller }) => ({ status: 200, body: deliveryDetail(await getDeliveryRecord(caller.tenantId, params.id, caller.now), logViewFor(caller)) }),
});

export const retryDeliveryOperation = defineOperation({
  operationId: 'retryWebhookDelivery',
  method: 'POST',
  path: `${prefix}/deliveries/{id}/retry`,
  summary: 'Retry a delivery by hand',
  tag,
  permission: 'webhooks.manage',
  idempotent: true,
  params: IdParams,
  responses: { 202: { description: 'The delivery, pending again in manual mode', schema: Delivery } },
  handle: async ({ params, caller }) => {
    const { delivery, writes } = await retryDelivery(caller.tenantId, params.id, caller.now);
    return { status: 202, body: delivery, writes, resourceId: delivery.id };
  },
});

export const recoverDeliveriesOperation = defineOperation({
  operationId: 'recoverWebhookDeliveries',
  method: 'POST',
  path: `${prefix}/endpoints/{id}/recover`,
  summary: 'Give every dead delivery of a time window one more attempt',
  tag,
  permission: 'webhooks.manage',
  idempotent: true,
  // Recoveries of one company meet on its count of running recoveries: a lost race runs again.
  retryOnConflict: true,
  params: IdParams,
  body: RecoverBody,
  responses: { 202: { description: 'The recovery, running: read it at its location', schema: Recovery } },
  handle: async ({ params, body, caller }) => {
    const { record, writes } = await startRecovery(caller.tenantId, params.id, body, caller.now);
    return { status: 202, body: toRecovery(record), headers: { location: `${prefix}/endpoints/${params.id}/recoveries/${record.id}` }, writes, resourceId: record.id };
  },
});

export const getRecoveryOperation = defineOperation({
  operationId: 'getWebhookRecovery',
  method: 'GET',
  path: `${prefix}/endpoints/{id}/recoveries/{recoveryId}`,
  summary: 'Read a recovery',
  tag,
  permission: 'webhooks.read',
  params: RecoveryParams,
  responses: { 200: { description: 'The recovery and its counts so far', schema: Recovery } },
  handle: async ({ params, caller }) => ({ status: 200, body: toRecovery(await getRecoveryRecord(caller.tenantId, params.id, params.recoveryId)) }),
});

export const listEventTypesOperation = defineOperation({
  operationId: 'listWebhookEventTypes',
  method: 'GET',
  path: `${prefix}/event-types`,
  summary: 'List the event kinds a destination can receive',
  tag,
  permission: 'webhooks.catalogue',
  responses: { 200: { description: 'Every kind with the JSON Schema of its data and an example, ordered by type', schema: EventTypeList } },
  handle: async () => ({ status: 200, body: { items: eventTypeCatalogue() } }),
});

export const webhookOperations = [
  listEventTypesOperation,
  createEndpointOperation,
  listEndpointsOperation,
  getEndpointOperation,
  updateEndpointOperation,
  deleteEndpointOperation,
  rotateSecretOperation,
  testEndpointOperation,
  listEndpointDeliveriesOperation,
  listDeliveriesOperation,
  getDeliveryOperation,
  retryDeliveryOperation,
  recoverDeliveriesOperation,
  getRecoveryOperation,
];
