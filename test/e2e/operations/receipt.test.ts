import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIPT_DECLARATION } from '../../../functions/field/receipt.ts';
import { rutCheckDigit } from '../../../shared/chile/rut.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
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

/** The receiver's signature, which a delivery with a receipt needs (decisions 16). */
const signed = [{ kind: 'signature', reference: 'signatures/receptor.png' }];

describe('receipt of goods at delivery (Ley 19.983, decisions 14 and 16)', () => {
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

  it('keeps the receiver with a normalised RUT, the delivery time and the declaration, and shows it to members but viewers and to the route’s driver only', async () => {
    const { route } = await startedRoute();
    const rut = randomRut();
    const place = 'B'.repeat(80);
    const delivered = await deliver(route.id, route.stops[0].id, { evidence: signed, receivedBy: { name: '  Rosa Díaz Muñoz ', rut: rut.written, place } });
    expect(delivered.status, delivered.text).toBe(200);
    expect(delivered.body.receivedBy).toEqual({ name: 'Rosa Díaz Muñoz', rut: rut.normal, place, receivedAt: delivered.body.outcomeAt, declaration: RECEIPT_DECLARATION });
    expect(RECEIPT_DECLARATION).toBe(
      'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4, y la letra c) del Art. 5 de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).',
    );
    expect(delivered.body.outcomeAt).toMatch(/Z$/);
    // Without a receipt: null, as on stops still open and stops stored before receipts.
    const plain = await deliver(route.id, route.stops[1].id, { receivedBy: null });
    expect([plain.status, plain.body.receivedBy]).toEqual([200, null]);
    for (const member of [admin, operator, driver]) {
      const read = await tenant.call(member, 'GET', `/v1/field/routes/${route.id}`);
      expect(read.status, member.role).toBe(200);
      expect(read.body.stops.map((s: { receivedBy: unknown }) => s.receivedBy), member.role).toEqual([delivered.body.receivedBy, null]);
    }
    // Viewers read the route without its receivers (decisions 16).
    const viewed = await tenant.call(viewer, 'GET', `/v1/field/routes/${route.id}`);
    expect([viewed.status, viewed.body.stops.map((s: { receivedBy: unknown }) => s.receivedBy)]).toEqual([200, [null, null]]);
    expect(viewed.text).not.toContain(rut.normal);
    expect(viewed.body.stops[0]).toMatchObject({ state: 'delivered', outcomeAt: delivered.body.outcomeAt });
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
      const refused = await deliver(route.id, stop, { evidence: signed, receivedBy: { name: 'Rosa', rut, place: 'Portería' } });
      expect([refused.status, refused.body.code, refused.body.errors], rut).toEqual([422, 'invalid_rut', [{ path: 'body.receivedBy.rut', message: 'must be a RUT with a valid check digit' }]]);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      if (rut) expect(refused.text).not.toContain(rut);
    }
    const malformed: Array<[unknown, string]> = [
      [{ name: '', rut: good.normal, place: 'Portería' }, 'body.receivedBy.name'],
      [{ name: 'x'.repeat(101), rut: good.normal, place: 'Portería' }, 'body.receivedBy.name'],
      [{ name: 'Rosa', rut: good.normal, place: ' ' }, 'body.receivedBy.place'],
      [{ name: 'Rosa', rut: good.normal, place: 'x'.repeat(81) }, 'body.receivedBy.place'],
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
    const taken = await deliver(route.id, stop, { evidence: signed, receivedBy: { name: 'Rosa', rut: good.normal.replace('-', '').toLowerCase(), place: 'Portería' } });
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
    const delivered = await deliver(route.id, route.stops[0].id, { evidence: signed, receivedBy: { name, rut: rut.written, place: 'Recepción del local' } });
    expect(delivered.status, delivered.text).toBe(200);
    const body = await waitFor(() => receiver.received.map((r) => r.body).find((b) => b.includes(route.stops[0].id)), 120_000);
    expect(JSON.parse(body).data).toEqual({ routeId: route.id, stopId: route.stops[0].id, orderId: orders[0].id, reference: orders[0].reference, outcomeAt: delivered.body.outcomeAt, evidenceCount: 1 });
    const view = await waitForView(stack(), tokenOf(orders[0]), (v) => v.state === 'delivered');
    const page = await call(stack(), 'GET', `/t/${tokenOf(orders[0])}`);
    for (const text of [JSON.stringify(view), page.text, ...receiver.received.map((r) => r.body)]) {
      for (const secretValue of [rut.normal, rut.written, name, 'Recepción del local', rut.normal.replace('-', '')]) expect(text).not.toContain(secretValue);
    }
  }, 240_000);

  it('needs the receiver’s signature with a receipt (422 evidence_required), named with the route’s own needs in one answer', async () => {
    const { route } = await startedRoute();
    const receivedBy = { name: 'Rosa', rut: randomRut().normal, place: 'Portería' };
    for (const evidence of [[], [{ kind: 'photo', reference: 'photos/1.jpg' }], [{ kind: 'note', reference: 'firmó' }]]) {
      const refused = await deliver(route.id, route.stops[0].id, { evidence, receivedBy });
      expect([refused.status, refused.body.code, refused.body.errors], JSON.stringify(evidence)).toEqual([
        422,
        'evidence_required',
        [{ path: 'body.evidence', message: 'a delivery with receivedBy needs the receiver’s signature (evidence of kind signature)' }],
      ]);
    }
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0]).toMatchObject({ state: 'pending', receivedBy: null });
    // A route that needs photos: both pieces named at once.
    const { route: strict } = await routeWithOrders(tenant, operator, driver, [[-33.47, -70.6]], { verification: { photo: true } });
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${strict.id}/start`)).status).toBe(200);
    const both = await deliver(strict.id, strict.stops[0].id, { evidence: [], receivedBy });
    expect([both.body.code, both.body.errors.map((e: { message: string }) => e.message)]).toEqual([
      'evidence_required',
      ['this route needs 1 photo(s) per delivery, 0 given', 'a delivery with receivedBy needs the receiver’s signature (evidence of kind signature)'],
    ]);
    // Without a receipt no signature is needed (the route's policy decides, as before).
    expect((await deliver(route.id, route.stops[1].id, {})).status).toBe(200);
    expect((await deliver(route.id, route.stops[0].id, { evidence: signed, receivedBy })).status).toBe(200);
  });

  it('keeps the receiver in an item of its own that the table’s TTL erases 5 years after delivery', async () => {
    const { route } = await startedRoute();
    const stop = route.stops[0].id;
    const delivered = await deliver(route.id, stop, { evidence: signed, receivedBy: { name: 'Rosa', rut: randomRut().normal, place: 'Portería' } });
    expect(delivered.status, delivered.text).toBe(200);
    const receipt = (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.stopReceipt(tenant.id, route.id, stop), ConsistentRead: true }))).Item!;
    const at = new Date(delivered.body.outcomeAt);
    at.setUTCFullYear(at.getUTCFullYear() + 5);
    expect(receipt).toMatchObject({ entity: 'stopReceipt', stopId: stop, name: 'Rosa', receivedAt: delivered.body.outcomeAt, expiresAt: Math.floor(at.getTime() / 1000) });
    const stopItem = (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.stop(tenant.id, route.id, stop), ConsistentRead: true }))).Item!;
    expect(stopItem.receivedBy).toBeUndefined();
    // DynamoDB deletes expired items late: a receipt past its TTL is not shown meanwhile.
    await table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.stopReceipt(tenant.id, route.id, stop), UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 } }));
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0]).toMatchObject({ state: 'delivered', receivedBy: null });
  });

  it('lets an admin erase a stop’s receiver: idempotent, audited without the data, 404 for an unknown stop, and a deliver replay does not bring it back', async () => {
    const { route } = await startedRoute();
    const stop = route.stops[0].id;
    const rut = randomRut();
    const deliverKey = randomUUID();
    const body = { evidence: signed, receivedBy: { name: 'Rosa Erasmo', rut: rut.normal, place: 'Portería norte' } };
    const delivered = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stop}/deliver`, { body, idempotencyKey: deliverKey });
    expect(delivered.status, delivered.text).toBe(200);
    const erasePath = `/v1/field/routes/${route.id}/stops/${stop}/received-by`;
    for (const member of [operator, driver, viewer]) expect((await tenant.call(member, 'DELETE', erasePath)).status, member.role).toBe(403);
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].receivedBy).not.toBeNull();

    const key = randomUUID();
    const erased = await tenant.call(admin, 'DELETE', erasePath, { idempotencyKey: key });
    expect([erased.status, erased.text]).toEqual([204, '']);
    const again = await tenant.call(admin, 'DELETE', erasePath, { idempotencyKey: key });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([204, 'true']);
    expect((await tenant.call(admin, 'DELETE', erasePath)).status).toBe(204);
    const read = await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`);
    expect(read.body.stops[0]).toMatchObject({ state: 'delivered', outcomeAt: delivered.body.outcomeAt, receivedBy: null });
    // The deliver's replay answers as it always did (receivedBy null, replayOmits), and the stop stays without a receiver.
    const replay = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${stop}/deliver`, { body, idempotencyKey: deliverKey });
    expect([replay.status, replay.body]).toEqual([200, { ...delivered.body, receivedBy: null }]);
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].receivedBy).toBeNull();

    // Nothing of the receiver is left in the route's partition, nor in the audit entries.
    const { Items = [] } = await table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': opsKeys.routePartition(tenant.id, route.id) }, ConsistentRead: true }));
    for (const value of ['Rosa Erasmo', rut.normal, 'Portería norte']) expect(JSON.stringify(Items)).not.toContain(value);
    const audit = await tenant.call(admin, 'GET', `/v1/audit?action=eraseStopReceiver&resourceId=${stop}`);
    expect(audit.body.items.map((e: { actorId: string; resourceId: string }) => [e.actorId, e.resourceId])).toEqual([[admin.id, stop]]);
    for (const value of ['Rosa Erasmo', rut.normal, 'Portería norte']) expect(audit.text).not.toContain(value);

    expect((await tenant.call(admin, 'DELETE', `/v1/field/routes/${route.id}/stops/${randomUUID()}/received-by`)).status).toBe(404);
    expect((await tenant.call(admin, 'DELETE', `/v1/field/routes/${randomUUID()}/stops/${stop}/received-by`)).status).toBe(404);
    const stranger = await TestTenant.create(stack());
    expect((await stranger.call(await stranger.member('admin'), 'DELETE', erasePath)).status).toBe(404);
  });

  it('shows and erases a receipt stored inside its stop before decisions 16', async () => {
    const { route } = await startedRoute();
    const stop = route.stops[0].id;
    const delivered = await deliver(route.id, stop, {});
    const old = { name: 'Antigua Receptora', rut: '11111111-1', place: 'Bodega', receivedAt: delivered.body.outcomeAt };
    await table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.stop(tenant.id, route.id, stop), UpdateExpression: 'SET receivedBy = :r', ExpressionAttributeValues: { ':r': old } }));
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].receivedBy).toEqual({ ...old, declaration: RECEIPT_DECLARATION });
    expect((await tenant.call(admin, 'DELETE', `/v1/field/routes/${route.id}/stops/${stop}/received-by`)).status).toBe(204);
    expect((await tenant.call(operator, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].receivedBy).toBeNull();
    const item = (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.stop(tenant.id, route.id, stop), ConsistentRead: true }))).Item!;
    expect([item.state, item.receivedBy]).toEqual(['delivered', undefined]);
  });
});
