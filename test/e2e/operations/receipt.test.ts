import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rutCheckDigit } from '../../../shared/chile/rut.ts';
import { call, TestTenant, type TestMember } from '../../support/api.ts';
import { Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { routeWithOrders, tokenOf, waitFor, waitForView } from './support.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1' } });
const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

/** A valid RUT of a random body, written with dots and a lower-case k where it has one. */
const randomRut = () => {
  const body = String(10_000_000 + Math.floor(Math.random() * 14_000_000));
  const check = rutCheckDigit(body);
  return { normal: `${body}-${check}`, written: `${body.slice(0, -6)}.${body.slice(-6, -3)}.${body.slice(-3)}-${check.toLowerCase()}` };
};

const points: [number, number][] = [
  [-33.44, -70.65],
  [-33.45, -70.66],
];

describe('receipt of goods at delivery (Ley 19.983, decisions 14)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let viewer: TestMember;
  let driver: TestMember;
  let otherDriver: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator, viewer, driver, otherDriver] = await Promise.all([
      tenant.member('admin', { mfa: true }),
      tenant.member('operator'),
      tenant.member('viewer'),
      tenant.member('driver', { firstName: 'Pedro' }),
      tenant.member('driver', { firstName: 'Juan' }),
    ]);
  });
  const startedRoute = async () => {
    const made = await routeWithOrders(tenant, operator, driver, points);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${made.route.id}/start`)).status).toBe(200);
    return made;
  };
  const deliver = (routeId: string, stopId: string, body: unknown, as = driver) => tenant.call(as, 'POST', `/v1/field/routes/${routeId}/stops/${stopId}/deliver`, { body });

  it('keeps the receiver with a normalised RUT and the delivery time, and shows it to members and the route’s driver only', async () => {
    const { route } = await startedRoute();
    const rut = randomRut();
    const delivered = await deliver(route.id, route.stops[0].id, { receivedBy: { name: '  Rosa Díaz Muñoz ', rut: rut.written, place: 'Bodega trasera' } });
    expect(delivered.status, delivered.text).toBe(200);
    expect(delivered.body.receivedBy).toEqual({ name: 'Rosa Díaz Muñoz', rut: rut.normal, place: 'Bodega trasera', receivedAt: delivered.body.outcomeAt });
    expect(delivered.body.outcomeAt).toMatch(/Z$/);
    // Without a receipt: null, as on stops still open and stops stored before receipts.
    const plain = await deliver(route.id, route.stops[1].id, { receivedBy: null });
    expect([plain.status, plain.body.receivedBy]).toEqual([200, null]);
    for (const member of [admin, operator, viewer, driver]) {
      const read = await tenant.call(member, 'GET', `/v1/field/routes/${route.id}`);
      expect(read.status, member.role).toBe(200);
      expect(read.body.stops.map((s: { receivedBy: unknown }) => s.receivedBy), member.role).toEqual([delivered.body.receivedBy, null]);
    }
    // A driver of another route learns nothing of it, and cannot act on it.
    const hidden = await tenant.call(otherDriver, 'GET', `/v1/field/routes/${route.id}`);
    expect([hidden.status, hidden.body.code]).toEqual([404, 'not_found']);
    expect(hidden.text).not.toContain(rut.normal);
    const { route: other } = await routeWithOrders(tenant, operator, otherDriver, [[-33.46, -70.67]]);
    expect((await tenant.call(otherDriver, 'GET', `/v1/field/routes/${other.id}`)).body.stops[0].receivedBy).toBeNull();
    const stranger = await TestTenant.create(stack());
    expect((await stranger.call(await stranger.member('admin'), 'GET', `/v1/field/routes/${route.id}`)).status).toBe(404);
  });

  it('refuses a RUT whose check digit or form is wrong with 422 invalid_rut, and malformed receipts with 400, changing nothing', async () => {
    const { route } = await startedRoute();
    const stop = route.stops[0].id;
    const good = randomRut();
    const wrongDigit = `${good.normal.slice(0, -1)}${good.normal.endsWith('0') ? '1' : '0'}`;
    for (const rut of [wrongDigit, '12.345.678-9', 'abc', '', '0-0', '1234567890123-4', '76086428 5x']) {
      const refused = await deliver(route.id, stop, { receivedBy: { name: 'Rosa', rut, place: 'Portería' } });
      expect([refused.status, refused.body.code, refused.body.errors], rut).toEqual([422, 'invalid_rut', [{ path: 'body.receivedBy.rut', message: 'must be a RUT with a valid check digit' }]]);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      if (rut) expect(refused.text).not.toContain(rut);
    }
    const malformed: Array<[unknown, string]> = [
      [{ name: '', rut: good.normal, place: 'Portería' }, 'body.receivedBy.name'],
      [{ name: 'x'.repeat(101), rut: good.normal, place: 'Portería' }, 'body.receivedBy.name'],
      [{ name: 'Rosa', rut: good.normal, place: ' ' }, 'body.receivedBy.place'],
      [{ name: 'Rosa', rut: good.normal, place: 'x'.repeat(101) }, 'body.receivedBy.place'],
      [{ name: 'Rosa', rut: 76086428, place: 'Portería' }, 'body.receivedBy.rut'],
      [{ name: 'Rosa', place: 'Portería' }, 'body.receivedBy.rut'],
      [{ name: 'Rosa', rut: good.normal, place: 'Portería', signature: 'x' }, 'body.receivedBy.signature'],
      ['Rosa', 'body.receivedBy'],
    ];
    for (const [receivedBy, path] of malformed) {
      const refused = await deliver(route.id, stop, { receivedBy });
      expect([refused.status, refused.body.code, refused.body.errors.map((e: { path: string }) => e.path)], path).toEqual([400, 'validation_failed', [path]]);
    }
    const read = await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`);
    expect(read.body.stops[0]).toMatchObject({ state: 'pending', outcomeAt: null, receivedBy: null, version: 1 });
    // Upper, lower, with or without dots and hyphen: one RUT.
    const taken = await deliver(route.id, stop, { receivedBy: { name: 'Rosa', rut: good.normal.replace('-', '').toLowerCase(), place: 'Portería' } });
    expect([taken.status, taken.body.receivedBy.rut]).toEqual([200, good.normal]);
    // A failed stop takes no receipt.
    const failed = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[1].id}/fail`, { body: { reason: 'Cerrado', receivedBy: { name: 'Rosa', rut: good.normal, place: 'x' } } });
    expect(failed.status).toBe(400);
  });

  it('keeps the receipt out of webhook payloads and the tracking view', async () => {
    const { secret } = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiver.url, eventTypes: ['field.stop.delivered'] } })).body;
    expect(secret).toBeTruthy();
    const { orders, route } = await startedRoute();
    const rut = randomRut();
    const name = `Receptora ${rut.normal}`;
    const delivered = await deliver(route.id, route.stops[0].id, { receivedBy: { name, rut: rut.written, place: 'Recepción del local' } });
    expect(delivered.status, delivered.text).toBe(200);
    const body = await waitFor(() => receiver.received.map((r) => r.body).find((b) => b.includes(route.stops[0].id)), 20_000);
    expect(JSON.parse(body).data).toEqual({ routeId: route.id, stopId: route.stops[0].id, orderId: orders[0].id, reference: orders[0].reference, outcomeAt: delivered.body.outcomeAt, evidenceCount: 0 });
    const view = await waitForView(stack(), tokenOf(orders[0]), (v) => v.state === 'delivered');
    const page = await call(stack(), 'GET', `/t/${tokenOf(orders[0])}`);
    for (const text of [JSON.stringify(view), page.text, ...receiver.received.map((r) => r.body)]) {
      for (const secretValue of [rut.normal, rut.written, name, 'Recepción del local', rut.normal.replace('-', '')]) expect(text).not.toContain(secretValue);
    }
  }, 40_000);
});
