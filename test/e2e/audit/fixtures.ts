import { expect } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack.ts';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';
import { eventually, type Receiver } from '../../support/receiver.ts';
import { careFixtures } from './care-fixtures.ts';
import { integrationFixtures } from './integration-fixtures.ts';
import { guideFixtures } from './guide-fixtures.ts';
import { tenantFixtures } from './tenant-fixtures.ts';
import { depotFixtures } from './depot-fixtures.ts';
import { previewFixtures } from './preview-fixtures.ts';
import { planChangeFixtures } from './plan-change-fixtures.ts';
import { sandboxProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { invoiceBody, PREFIX as INVOICES, readySandbox } from '../invoicing/support.ts';

/**
 * Request fixtures for the audit walk, one per mutating operationId. A mutating operation that
 * has none here fails the walk: whoever adds an operation adds its fixture too.
 */

/** Personal data the walk feeds in; none of it may reach an audit entry. */
export const personal = {
  recipientName: 'Valentina Sepúlveda Rojas',
  recipientPhone: '+56 9 7123 4567',
  recipientEmail: 'valentina.sepulveda@example.cl',
  address: 'Pasaje Los Aromos 77, Ñuñoa',
  memberFirstNames: ['Ximena', 'Bernardita', 'Anacleto'],
  failureReason: 'Nadie en casa, dejó aviso la vecina Gladys',
  evidenceNote: 'Recibió Valentina en la puerta',
};

export interface World {
  stack: LocalStack;
  tenant: TestTenant;
  /** Admin with two-step verification (webhook destinations need it). */
  admin: TestMember;
  operator: TestMember;
  driver: TestMember;
  receiver: Receiver;
}

export interface Call {
  member: TestMember;
  method: string;
  path: string;
  body?: unknown;
  /** The resource the entry must name, read from the answer or known beforehand. */
  resourceId: (response: ApiResponse) => string;
  /** 2xx status of success. */
  status: number;
}

export interface Refusal {
  member: TestMember;
  method: string;
  path: string;
  body?: unknown;
  status: number;
}

export interface Fixture {
  /** Makes what the call needs through the API (fresh resources each time) and returns it. */
  prepare(world: World): Promise<Call>;
  /** A refusal that reaches the operation or its commit: a stale version, a taken plate, a wrong state. */
  refuse?(world: World): Promise<Refusal>;
  /** A POST that only reads (the question text travels in a body): it must write no entry. */
  changesNothing?: true;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36).toUpperCase()}${++counter}`;
const plate = () => `AU${String(++counter).padStart(4, '0')}`.slice(0, 12);
const serviceDate = '2026-11-23';
/** One active destination per URL: each fixture's destination gets a path of its own. */
const receiverUrl = (w: World) => `${w.receiver.url}/${++counter}`;

const ok = (response: ApiResponse, status: number) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

const orderBody = () => ({
  reference: unique('AUD-'),
  recipient: { name: personal.recipientName, phone: personal.recipientPhone, email: personal.recipientEmail },
  address: { text: personal.address, latitude: -33.456, longitude: -70.598 },
  serviceDate,
});

export const steps = {
  vehicle: async (w: World) => ok(await w.tenant.call(w.operator, 'POST', '/v1/fleet/vehicles', { body: { plate: plate(), label: 'Furgón 2' } }), 201),
  order: async (w: World) => ok(await w.tenant.call(w.operator, 'POST', '/v1/distribution/orders', { body: orderBody() }), 201),
  plan: async (w: World, orderIds?: string[]) => {
    const ids = orderIds ?? [(await steps.order(w)).id];
    return ok(await w.tenant.call(w.operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: ids }] } }), 201);
  },
  approvedPlan: async (w: World) => {
    const plan = await steps.plan(w);
    return ok(await w.tenant.call(w.operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  },
  assignBody: (w: World, planId: string) => ({
    routePlanId: planId,
    vehicleRouteId: 'V1',
    workerId: w.driver.id,
    serviceDate,
    depotName: 'Bodega Quilicura',
    vehicle: { plate: plate(), label: 'Camión 3/4' },
  }),
  route: async (w: World) => {
    const plan = await steps.approvedPlan(w);
    return ok(await w.tenant.call(w.operator, 'POST', '/v1/field/routes', { body: steps.assignBody(w, plan.id) }), 201);
  },
  startedRoute: async (w: World) => {
    const route = await steps.route(w);
    return ok(await w.tenant.call(w.driver, 'POST', `/v1/field/routes/${route.id}/start`), 200);
  },
  endpoint: async (w: World) =>
    ok(await w.tenant.call(w.admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiverUrl(w), eventTypes: ['distribution.order.created'] } }), 201).endpoint,
  /** A delivery the receiver accepted: the only kind (with dead ones) that can be retried. */
  succeededDelivery: async (w: World) => {
    const endpoint = await steps.endpoint(w);
    const delivery = ok(await w.tenant.call(w.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`), 202);
    await eventually(() => w.tenant.call(w.admin, 'GET', `/v1/webhooks/deliveries/${delivery.id}`), (r) => r.body?.state === 'succeeded');
    return delivery;
  },
};

/** Invoicing: one ready sandbox connection per world (connections are slow to make). */
const invoicingReady = new WeakMap<World, ReturnType<typeof readySandbox>>();
const invoicing = {
  ready: (w: World) => {
    if (!invoicingReady.has(w)) invoicingReady.set(w, readySandbox(w.tenant, w.admin));
    return invoicingReady.get(w)!;
  },
  draft: async (w: World) => {
    const ready = await invoicing.ready(w);
    return ok(await w.tenant.call(w.operator, 'POST', INVOICES, { body: invoiceBody(ready.connection.id, ready.customerId) }), 201);
  },
  reviewed: async (w: World) => ok(await w.tenant.call(w.operator, 'POST', `${INVOICES}/${(await invoicing.draft(w)).id}/review`, { body: { version: 1 } }), 200),
  approved: async (w: World) => ok(await w.tenant.call(w.admin, 'POST', `${INVOICES}/${(await invoicing.reviewed(w)).id}/approve`, { body: { version: 2 } }), 200),
  /** An intent the provider applied without answering: reconcile has something to settle. */
  unknown: async (w: World) => {
    const intent = await invoicing.approved(w);
    sandboxProvider().faults.add({ operation: 'issueDocument', kind: 'timeout_after_apply', times: 1 });
    return ok(await w.tenant.call(w.admin, 'POST', `${INVOICES}/${intent.id}/issue`), 200);
  },
};

const idOfAnswer = (response: ApiResponse) => response.body.id as string;
const known = (id: string) => () => id;

export const fixtures: Record<string, Fixture> = {
  ...careFixtures,
  ...integrationFixtures,
  ...guideFixtures,
  ...tenantFixtures,
  ...depotFixtures,
  ...previewFixtures,
  ...planChangeFixtures,
  createInvoiceIntent: {
    prepare: async (w) => {
      const ready = await invoicing.ready(w);
      return { member: w.operator, method: 'POST', path: INVOICES, body: invoiceBody(ready.connection.id, ready.customerId), resourceId: idOfAnswer, status: 201 };
    },
  },
  reviewInvoiceIntent: {
    prepare: async (w) => {
      const intent = await invoicing.draft(w);
      return { member: w.operator, method: 'POST', path: `${INVOICES}/${intent.id}/review`, body: { version: 1 }, resourceId: known(intent.id), status: 200 };
    },
    refuse: async (w) => ({ member: w.operator, method: 'POST', path: `${INVOICES}/${(await invoicing.draft(w)).id}/review`, body: { version: 9 }, status: 409 }),
  },
  approveInvoiceIntent: {
    prepare: async (w) => {
      const intent = await invoicing.reviewed(w);
      return { member: w.admin, method: 'POST', path: `${INVOICES}/${intent.id}/approve`, body: { version: 2 }, resourceId: known(intent.id), status: 200 };
    },
    refuse: async (w) => ({ member: w.admin, method: 'POST', path: `${INVOICES}/${(await invoicing.draft(w)).id}/approve`, body: { version: 1 }, status: 409 }),
  },
  cancelInvoiceIntent: {
    prepare: async (w) => {
      const intent = await invoicing.draft(w);
      return { member: w.admin, method: 'POST', path: `${INVOICES}/${intent.id}/cancel`, body: { version: 1 }, resourceId: known(intent.id), status: 200 };
    },
  },
  issueInvoiceIntent: {
    prepare: async (w) => {
      const intent = await invoicing.approved(w);
      return { member: w.admin, method: 'POST', path: `${INVOICES}/${intent.id}/issue`, resourceId: known(intent.id), status: 200 };
    },
    refuse: async (w) => ({ member: w.admin, method: 'POST', path: `${INVOICES}/${(await invoicing.draft(w)).id}/issue`, status: 409 }),
  },
  reconcileInvoiceIntent: {
    prepare: async (w) => {
      const intent = await invoicing.unknown(w);
      return { member: w.operator, method: 'POST', path: `${INVOICES}/${intent.id}/reconcile`, resourceId: known(intent.id), status: 200 };
    },
  },
  classifyQuestion: {
    changesNothing: true,
    prepare: async (w) => ({ member: w.operator, method: 'POST', path: '/v1/assistant/questions', body: { text: '¿dónde está la patente BBCC12?' }, resourceId: known(w.tenant.id), status: 200 }),
  },
  recordAskedQuestion: {
    // The counters are the tenant's own statistics: the tenant is the resource.
    prepare: async (w) => ({ member: w.driver, method: 'POST', path: '/v1/assistant/asked', body: { question: 'fuel' }, resourceId: known(w.tenant.id), status: 204 }),
  },
  createVehicle: {
    prepare: async (w) => ({ member: w.operator, method: 'POST', path: '/v1/fleet/vehicles', body: { plate: plate(), label: 'Camioneta 1' }, resourceId: idOfAnswer, status: 201 }),
    // Refused by the plate guard's condition inside the commit, after the operation ran.
    refuse: async (w) => {
      const taken = await steps.vehicle(w);
      return { member: w.operator, method: 'POST', path: '/v1/fleet/vehicles', body: { plate: taken.plate, label: 'Otra' }, status: 409 };
    },
  },
  updateVehicle: {
    prepare: async (w) => {
      const vehicle = await steps.vehicle(w);
      return { member: w.operator, method: 'PATCH', path: `/v1/fleet/vehicles/${vehicle.id}`, body: { version: 1, label: 'Furgón 2 (taller)' }, resourceId: known(vehicle.id), status: 200 };
    },
    refuse: async (w) => {
      const vehicle = await steps.vehicle(w);
      return { member: w.operator, method: 'PATCH', path: `/v1/fleet/vehicles/${vehicle.id}`, body: { version: 7, label: 'Tarde' }, status: 409 };
    },
  },
  createOrder: {
    prepare: async (w) => ({ member: w.operator, method: 'POST', path: '/v1/distribution/orders', body: orderBody(), resourceId: idOfAnswer, status: 201 }),
  },
  cancelOrder: {
    prepare: async (w) => {
      const order = await steps.order(w);
      return { member: w.operator, method: 'POST', path: `/v1/distribution/orders/${order.id}/cancel`, body: { version: 1 }, resourceId: known(order.id), status: 200 };
    },
    refuse: async (w) => {
      const order = await steps.order(w);
      return { member: w.operator, method: 'POST', path: `/v1/distribution/orders/${order.id}/cancel`, body: { version: 2 }, status: 409 };
    },
  },
  createRoutePlan: {
    prepare: async (w) => {
      const order = await steps.order(w);
      return { member: w.operator, method: 'POST', path: '/v1/routing/plans', body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] }, resourceId: idOfAnswer, status: 201 };
    },
  },
  approveRoutePlan: {
    prepare: async (w) => {
      const plan = await steps.plan(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/approve`, body: { version: 1 }, resourceId: known(plan.id), status: 200 };
    },
    refuse: async (w) => {
      const plan = await steps.plan(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/approve`, body: { version: 3 }, status: 409 };
    },
  },
  assignRoute: {
    prepare: async (w) => {
      const plan = await steps.approvedPlan(w);
      return { member: w.operator, method: 'POST', path: '/v1/field/routes', body: steps.assignBody(w, plan.id), resourceId: idOfAnswer, status: 201 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      return { member: w.operator, method: 'POST', path: '/v1/field/routes', body: steps.assignBody(w, route.routePlanId), status: 409 };
    },
  },
  startRoute: {
    prepare: async (w) => {
      const route = await steps.route(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/start`, resourceId: known(route.id), status: 200 };
    },
    refuse: async (w) => {
      const route = await steps.startedRoute(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/start`, status: 409 };
    },
  },
  recordRoutePosition: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      const body = { latitude: -33.44, longitude: -70.62, recordedAt: new Date().toISOString() };
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/positions`, body, resourceId: known(route.id), status: 202 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      const body = { latitude: -33.44, longitude: -70.62, recordedAt: new Date().toISOString() };
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/positions`, body, status: 409 };
    },
  },
  deliverStop: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      const stop = route.stops[0];
      const body = { evidence: [{ kind: 'note', reference: personal.evidenceNote }] };
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/stops/${stop.id}/deliver`, body, resourceId: known(stop.id), status: 200 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, body: {}, status: 409 };
    },
  },
  eraseStopReceiver: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      const stop = route.stops[0];
      const body = { evidence: [{ kind: 'signature', reference: 'signatures/1.png' }], receivedBy: { name: personal.recipientName, rut: '11.111.111-1', place: personal.address } };
      ok(await w.tenant.call(w.driver, 'POST', `/v1/field/routes/${route.id}/stops/${stop.id}/deliver`, { body }), 200);
      return { member: w.admin, method: 'DELETE', path: `/v1/field/routes/${route.id}/stops/${stop.id}/received-by`, resourceId: known(stop.id), status: 204 };
    },
    refuse: async (w) => {
      const route = await steps.startedRoute(w);
      return { member: w.admin, method: 'DELETE', path: `/v1/field/routes/${route.id}/stops/${crypto.randomUUID()}/received-by`, status: 404 };
    },
  },
  failStop: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      const stop = route.stops[0];
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/stops/${stop.id}/fail`, body: { reason: personal.failureReason }, resourceId: known(stop.id), status: 200 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/fail`, body: { reason: personal.failureReason }, status: 409 };
    },
  },
  resequenceRoute: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/resequence`, body: { from: { latitude: -33.44, longitude: -70.62 } }, resourceId: known(route.id), status: 200 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/resequence`, body: {}, status: 409 };
    },
  },
  finishRoute: {
    prepare: async (w) => {
      const route = await steps.startedRoute(w);
      ok(await w.tenant.call(w.driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: {} }), 200);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/finish`, resourceId: known(route.id), status: 200 };
    },
    // A stop without an outcome: refused by the operation.
    refuse: async (w) => {
      const route = await steps.startedRoute(w);
      return { member: w.driver, method: 'POST', path: `/v1/field/routes/${route.id}/finish`, status: 409 };
    },
  },
  cancelRoute: {
    prepare: async (w) => {
      const route = await steps.route(w);
      return { member: w.operator, method: 'POST', path: `/v1/field/routes/${route.id}/cancel`, body: { version: 1 }, resourceId: known(route.id), status: 200 };
    },
    refuse: async (w) => {
      const route = await steps.route(w);
      return { member: w.operator, method: 'POST', path: `/v1/field/routes/${route.id}/cancel`, body: { version: 4 }, status: 409 };
    },
  },
  createWebhookEndpoint: {
    prepare: async (w) => ({
      member: w.admin,
      method: 'POST',
      path: '/v1/webhooks/endpoints',
      body: { url: receiverUrl(w), eventTypes: ['distribution.order.created'] },
      resourceId: (response) => response.body.endpoint.id,
      status: 201,
    }),
  },
  updateWebhookEndpoint: {
    prepare: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'PATCH', path: `/v1/webhooks/endpoints/${endpoint.id}`, body: { version: 1, description: 'ERP' }, resourceId: known(endpoint.id), status: 200 };
    },
    refuse: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'PATCH', path: `/v1/webhooks/endpoints/${endpoint.id}`, body: { version: 9, description: 'ERP' }, status: 409 };
    },
  },
  rotateWebhookSecret: {
    prepare: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/endpoints/${endpoint.id}/secrets`, body: { version: 1, graceSeconds: 3600 }, resourceId: known(endpoint.id), status: 201 };
    },
    refuse: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/endpoints/${endpoint.id}/secrets`, body: { version: 5, graceSeconds: 0 }, status: 409 };
    },
  },
  deleteWebhookEndpoint: {
    prepare: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'DELETE', path: `/v1/webhooks/endpoints/${endpoint.id}`, resourceId: known(endpoint.id), status: 204 };
    },
  },
  recoverWebhookDeliveries: {
    // The recovery is the new resource; its pages write their own entries as the system.
    prepare: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/endpoints/${endpoint.id}/recover`, body: { since: new Date(Date.now() - 3_600_000).toISOString() }, resourceId: idOfAnswer, status: 202 };
    },
    refuse: async (w) => {
      const endpoint = await steps.endpoint(w);
      await w.tenant.call(w.admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 1, active: false } });
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/endpoints/${endpoint.id}/recover`, body: { since: new Date(Date.now() - 3_600_000).toISOString() }, status: 409 };
    },
  },
  sendWebhookTest: {
    // The test notification is a new delivery: the entry names it.
    prepare: async (w) => {
      const endpoint = await steps.endpoint(w);
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/endpoints/${endpoint.id}/test`, resourceId: idOfAnswer, status: 202 };
    },
  },
  retryWebhookDelivery: {
    prepare: async (w) => {
      const delivery = await steps.succeededDelivery(w);
      return { member: w.admin, method: 'POST', path: `/v1/webhooks/deliveries/${delivery.id}/retry`, resourceId: known(delivery.id), status: 202 };
    },
  },
};
