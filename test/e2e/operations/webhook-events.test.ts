import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribableEventTypes } from '../../../shared/events/catalogue.ts';
import { TestTenant } from '../../support/api.ts';
import { Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, orderBody, routeWithOrders } from './support.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1' } });
const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

/** The data fields of each event kind, exactly as the specification's Events table lists them. */
const specFields: Record<string, string[]> = {
  'distribution.order.created': ['orderId', 'reference', 'state'],
  'distribution.order.cancelled': ['orderId', 'reference', 'state'],
  'routing.plan.approved': ['routePlanId', 'previewId', 'routeCount', 'unassignedCount'],
  'field.route.assigned': ['routeId', 'routePlanId', 'vehicleRouteId', 'serviceDate', 'fleetVehicleId', 'stopCount', 'orderIds'],
  'field.route.cancelled': ['routeId', 'serviceDate'],
  'field.route.started': ['routeId'],
  'field.stop.delivered': ['routeId', 'stopId', 'orderId', 'reference', 'outcomeAt', 'evidenceCount'],
  'field.stop.failed': ['routeId', 'stopId', 'orderId', 'reference', 'outcomeAt', 'evidenceCount'],
  'field.route.finished': ['routeId', 'finishedAt', 'summary'],
};

describe('every event kind reaches a subscribed receiver', () => {
  it('signed, with exactly the data fields of the specification and no personal data', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin', { mfa: true });
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver', { firstName: 'Pedro' });
    const { secret } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiver.url, eventTypes: subscribableEventTypes } })).body;

    // A route of three: one delivered, one failed, one whose order is cancelled; then finished.
    const { orders, route } = await routeWithOrders(tenant, operator, driver, [
      [-33.44, -70.65],
      [-33.45, -70.66],
      [-33.46, -70.67],
    ]);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: { evidence: [{ kind: 'photo', reference: 'p/1.jpg' }] } });
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[1].id}/fail`, { body: { reason: 'Nadie en casa' } });
    expect((await tenant.call(operator, 'POST', `/v1/distribution/orders/${orders[2].id}/cancel`, { body: { version: 2 } })).status).toBe(200);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/finish`)).status).toBe(200);
    // A second route, cancelled before it starts.
    const spare = await routeWithOrders(tenant, operator, driver, [[-33.47, -70.68]]);
    expect((await tenant.call(operator, 'POST', `/v1/field/routes/${spare.route.id}/cancel`, { body: { version: 1 } })).status).toBe(200);
    created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('PED-LAST') }));

    const kinds = new Set(Object.keys(specFields));
    const seen = new Map<string, Record<string, unknown>>();
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while ([...kinds].some((k) => !seen.has(k)) && Date.now() < deadline) {
      for (const request of receiver.received) {
        const envelope = new Webhook(secret.value).verify(request.body, request.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
        seen.set(envelope.type, envelope.data);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [kind, fields] of Object.entries(specFields)) {
      expect(seen.has(kind), `${kind} reached the receiver`).toBe(true);
      expect(Object.keys(seen.get(kind)!).sort(), kind).toEqual([...fields].sort());
    }
    expect(seen.get('field.route.finished')!.summary).toEqual({ stopCount: 3, deliveredCount: 1, failedCount: 1, durationSeconds: expect.any(Number) });
    const everything = receiver.received.map((r) => r.body).join('\n');
    for (const personal of ['María José Pérez', '+56 9 8765 4321', 'maria.perez@example.cl', 'Av. Providencia', 'Pedro']) expect(everything).not.toContain(personal);
  }, 240_000);
});
