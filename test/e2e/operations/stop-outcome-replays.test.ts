import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { eventCollector, routeWithOrders, waitFor } from './support.ts';

const collector = eventCollector();
const stack = useLocalStack({ extraStreamConsumers: { 'test-events': collector.consumer } });
const two: [number, number][] = [
  [-33.44, -70.65],
  [-33.45, -70.64],
];

// Drivers report outcomes from phones on bad networks (issue 29): a retry after a lost answer
// must get the first answer back, never a 409 for a stop it closed itself.
describe('stop outcomes sent again', () => {
  it('replay the first answer under the same key, stay 409 under a new key, and emit one event each', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { route } = await routeWithOrders(tenant, operator, driver, two);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const [first, second] = route.stops as { id: string }[];

    const deliverKey = randomUUID();
    const deliver = () => tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${first.id}/deliver`, { body: {}, idempotencyKey: deliverKey });
    const delivered = await deliver();
    expect(delivered.status, delivered.text).toBe(200);
    const again = await deliver();
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(delivered.body);
    const other = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${first.id}/deliver`, { body: {} });
    expect(other.status).toBe(409);

    const failKey = randomUUID();
    const fail = (body: object) => tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${second.id}/fail`, { body, idempotencyKey: failKey });
    const failed = await fail({ reason: 'Nadie en el domicilio' });
    expect(failed.status, failed.text).toBe(200);
    expect((await fail({ reason: 'Nadie en el domicilio' })).body).toEqual(failed.body);
    // The same key with another body is a different request, refused as such.
    expect((await fail({ reason: 'Dirección no encontrada' })).status).toBe(422);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${second.id}/deliver`, { body: {} })).status).toBe(409);

    const ofRoute = (type: string) => collector.events.filter((e) => e.type === type && e.data.routeId === route.id);
    await waitFor(() => (ofRoute('field.stop.delivered').length > 0 && ofRoute('field.stop.failed').length > 0 ? true : undefined));
    expect(ofRoute('field.stop.delivered')).toHaveLength(1);
    expect(ofRoute('field.stop.failed')).toHaveLength(1);
    const stops = (await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops.map((s: { state: string }) => s.state);
    expect(stops).toEqual(['delivered', 'failed']);
  });

  it('replay a delivery with a receipt without the receiver: the name and RUT stay on the stop alone', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { route } = await routeWithOrders(tenant, operator, driver, two);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const key = randomUUID();
    const body = { evidence: [{ kind: 'signature', reference: 'signatures/rosa.png' }], receivedBy: { name: 'Rosa Díaz Muñoz', rut: '11.111.111-1', place: 'Bodega trasera' } };
    const first = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body, idempotencyKey: key });
    expect(first.status, first.text).toBe(200);
    expect(first.body.receivedBy).toMatchObject({ name: 'Rosa Díaz Muñoz', rut: '11111111-1' });
    const replay = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body, idempotencyKey: key });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual({ ...first.body, receivedBy: null });
    const stop = (await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0];
    expect(stop.receivedBy).toEqual(first.body.receivedBy);
  });

  it('need the idempotency-key header, as every change', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const { route } = await routeWithOrders(tenant, operator, driver, two);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const answer = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: {}, idempotencyKey: false });
    expect(answer.status).toBe(400);
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].state).toBe('pending');
  });
});
