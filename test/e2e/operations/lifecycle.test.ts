import { describe, expect, it } from 'vitest';
import { eventDataSchemas } from '../../../shared/events/catalogue.ts';
import { call, TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, eventCollector, orderBody, routeWithOrders, tokenOf, waitFor, waitForView } from './support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { 'test-events': collector.consumer } });

const viewFields = ['company', 'order', 'state', 'eta', 'etaNote', 'stopsBefore', 'driver', 'approximatePosition', 'closedAt', 'dispatchGuideNumber', 'refreshSeconds'];
// Three stops going north from Santiago centre; the tracked order is the last.
const points: [number, number][] = [
  [-33.44, -70.65],
  [-33.43, -70.64],
  [-33.42, -70.63],
];
const personal = ['María', 'Pérez', 'Providencia 1234', '8765', 'maria.perez', '-33.42,', '-70.63,'];

const assertNoPersonalData = (text: string) => {
  for (const word of personal) expect(text, `found "${word}"`).not.toContain(word);
};

describe('the life of an order, watched through its tracking link', () => {
  it('goes pending → on_the_way → arriving → delivered, and the route finishes with a summary', async () => {
    const tenant = await TestTenant.create(stack(), 'Distribuidora Austral SpA');
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver', { firstName: 'Juan' });
    const first = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('SOLO-1') }));
    expect(first).toMatchObject({ state: 'pending', version: 1, routeId: null });
    expect(first.trackingUrl).toMatch(new RegExp(`^${stack().baseUrl}/t/[A-Za-z0-9_-]{32}$`));

    const { orders, route } = await routeWithOrders(tenant, operator, driver, points);
    expect(route).toMatchObject({ state: 'assigned', version: 1, workerId: driver.id, stops: [{ sequence: 1 }, { sequence: 2 }, { sequence: 3 }] });
    const token = tokenOf(orders[2]);

    const pending = await waitForView(stack(), token, (v) => v.stopsBefore === 2);
    expect(Object.keys(pending).sort()).toEqual([...viewFields].sort());
    expect(pending).toMatchObject({ company: { name: 'Distribuidora Austral SpA' }, order: { reference: orders[2].reference }, state: 'pending', eta: null, driver: null, approximatePosition: null, closedAt: null, refreshSeconds: 120 });
    expect(pending.etaNote).toContain('noviembre');

    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const started = await waitForView(stack(), token, (v) => v.state === 'on_the_way');
    expect(started).toMatchObject({ driver: { firstName: 'Juan' }, eta: null, stopsBefore: 2, refreshSeconds: 30, approximatePosition: null });
    expect(started.etaNote).toEqual(expect.any(String));

    const recordedAt = new Date().toISOString();
    const position = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.456789, longitude: -70.661234, recordedAt } });
    expect(position.status, position.text).toBe(202);
    const moving = await waitForView(stack(), token, (v) => v.approximatePosition !== null);
    expect(moving.approximatePosition).toEqual({ latitude: -33.457, longitude: -70.661, updatedAt: recordedAt });
    expect(moving.eta.label).toMatch(/^\d{2}:\d{2} - \d{2}:\d{2}$/);
    expect(Date.parse(moving.eta.to) - Date.parse(moving.eta.from)).toBe(30 * 60_000);
    expect(moving.etaNote).toBeNull();

    const stops = route.stops;
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stops[0].id}/deliver`, { body: { evidence: [{ kind: 'photo', reference: 's3://evidence/1.jpg' }] } })).status).toBe(200);
    const arriving = await waitForView(stack(), token, (v) => v.state === 'arriving');
    expect(arriving.stopsBefore).toBe(1);
    const failed = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stops[1].id}/fail`, { body: { reason: 'Nadie en el domicilio' } });
    expect(failed.body).toMatchObject({ state: 'failed', failureReason: 'Nadie en el domicilio', evidenceCount: 0, version: 2 });
    expect((await waitForView(stack(), token, (v) => v.stopsBefore === 0)).state).toBe('arriving');
    const delivered = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stops[2].id}/deliver`, { body: {} });
    expect(delivered.status, delivered.text).toBe(200);
    const closed = await waitForView(stack(), token, (v) => v.state === 'delivered');
    expect(closed).toMatchObject({ eta: null, etaNote: null, stopsBefore: null, driver: null, approximatePosition: null, refreshSeconds: 3600, closedAt: delivered.body.outcomeAt });

    const page = await call(stack(), 'GET', `/t/${token}`);
    expect(page.status).toBe(200);
    assertNoPersonalData(page.text);
    assertNoPersonalData(JSON.stringify([pending, started, moving, arriving, closed]));

    const finished = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/finish`);
    expect(finished.status, finished.text).toBe(200);
    expect(finished.body).toMatchObject({ state: 'finished', version: 3, summary: { stopCount: 3, deliveredCount: 2, failedCount: 1 } });
    expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[2].id}`)).body).toMatchObject({ state: 'delivered', routeId: route.id, stopId: stops[2].id });
    expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[1].id}`)).body.state).toBe('failed');

    // Every event of this tenant carries exactly the fields of the specification, nothing personal.
    const mine = await waitFor(() => {
      const list = collector.events.filter((e) => e.tenantId === tenant.id);
      return list.some((e) => e.type === 'field.route.finished') ? list : undefined;
    });
    const kinds = new Set(mine.map((e) => e.type));
    for (const kind of ['distribution.order.created', 'routing.plan.approved', 'field.route.assigned', 'field.route.started', 'field.stop.delivered', 'field.stop.failed', 'field.route.finished']) {
      expect(kinds, kind).toContain(kind);
    }
    for (const event of mine) {
      const schema = eventDataSchemas[event.type as keyof typeof eventDataSchemas];
      expect(Object.keys(event.data).sort()).toEqual(Object.keys(schema.entries).sort());
      assertNoPersonalData(JSON.stringify(event.data));
    }
    expect(mine.filter((e) => e.type === 'distribution.order.created')).toHaveLength(4);
    const assigned = mine.find((e) => e.type === 'field.route.assigned')!;
    expect(assigned.data).toEqual({ routeId: route.id, routePlanId: route.routePlanId, vehicleRouteId: 'V1', serviceDate: '2026-11-23', fleetVehicleId: route.fleetVehicleId, stopCount: 3, orderIds: orders.map((o) => o.id) });
    const finishedEvent = mine.find((e) => e.type === 'field.route.finished')!;
    expect(finishedEvent.data).toEqual({ routeId: route.id, finishedAt: finished.body.finishedAt, summary: finished.body.summary });
    const deliveredEvent = mine.find((e) => e.type === 'field.stop.delivered' && e.data.stopId === stops[0].id)!;
    expect(deliveredEvent.data).toMatchObject({ routeId: route.id, orderId: orders[0].id, reference: orders[0].reference, evidenceCount: 1 });
  });
});
