import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { expect } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack.ts';
import { call, type ApiResponse, type TestMember, type TestTenant } from '../../support/api.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

export interface CollectedEvent {
  id: string;
  type: string;
  tenantId: string;
  data: Record<string, unknown>;
}

/** A stream consumer beside the project's own that keeps every outbox event it sees. */
export const eventCollector = () => {
  const events: CollectedEvent[] = [];
  const consumer = async (event: DynamoDBStreamEvent) => {
    for (const record of event.Records) {
      if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) continue;
      const item = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
      if (item.entity === 'event') events.push({ id: item.id, type: item.type, tenantId: item.tenantId, data: item.data });
    }
  };
  return { events, consumer };
};

let plateCounter = 0;
export const plate = () => `OPS${String(++plateCounter).padStart(3, '0')}${Math.random().toString(36).slice(2, 5).toUpperCase()}`;

export const orderBody = (reference: string, latitude = -33.45, longitude = -70.66, serviceDate = '2026-11-23') => ({
  reference,
  recipient: { name: 'María José Pérez', phone: '+56 9 8765 4321', email: 'maria.perez@example.cl' },
  address: { text: 'Av. Providencia 1234, depto 56, Providencia', latitude, longitude },
  serviceDate,
});

export const created = (response: ApiResponse, status = 201) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

/** Orders, an approved plan with one route of them in order, and that route assigned to a driver. */
export const routeWithOrders = async (
  tenant: TestTenant,
  operator: TestMember,
  driver: TestMember,
  points: [number, number][],
  options: { verification?: Record<string, unknown>; serviceDate?: string } = {},
) => {
  const serviceDate = options.serviceDate ?? '2026-11-23';
  const orders = [];
  for (const [i, [lat, lng]] of points.entries()) {
    orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody(`PED-${Date.now()}-${i}`, lat, lng, serviceDate) })));
  }
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }] } }));
  const approved = created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  const route = created(
    await tenant.call(operator, 'POST', '/v1/field/routes', {
      body: {
        routePlanId: plan.id,
        vehicleRouteId: 'V1',
        workerId: driver.id,
        serviceDate,
        depotName: 'Bodega Quilicura',
        vehicle: { plate: plate(), label: 'Camión 3/4' },
        ...(options.verification ? { verification: options.verification } : {}),
      },
    }),
  );
  return { orders, plan: approved, route };
};

export const tokenOf = (order: { trackingUrl: string }) => order.trackingUrl.split('/t/')[1];

/** The projection follows the stream: poll the public view until it satisfies the check. */
export const waitForView = async (stack: LocalStack, token: string, check: (view: any) => boolean, timeoutMs = WAIT_LIMIT_MS): Promise<any> => {
  const deadline = Date.now() + timeoutMs;
  let last: ApiResponse | undefined;
  // Backing off keeps a long wait under the tracking routes' own limit (120 a minute per address),
  // which a steady 100 ms poll passes after 12 s on a loaded machine.
  let pause = 100;
  while (Date.now() < deadline) {
    last = await call(stack, 'GET', `/v1/track/${token}`);
    if (last.status === 200 && check(last.body)) return last.body;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(1_000, pause * 1.5);
  }
  throw new Error(`tracking view did not reach the expected state; last: ${last?.status} ${last?.text}`);
};

export const waitFor = async <T>(probe: () => T | undefined, timeoutMs = WAIT_LIMIT_MS): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
};
