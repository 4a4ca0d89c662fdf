import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getDepot } from '../../functions/routing/depots.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();
const DEPOTS = '/v1/routing/depots';

const depot = (name = 'Bodega Quilicura') => ({ name, address: { text: 'Av. Presidente Eduardo Frei Montalva 9950, Quilicura', latitude: -33.3602, longitude: -70.7271 } });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('depots (decisions 15)', () => {
  it('an admin registers a depot (201, Location, version 1); get and list show it; text is trimmed, coordinates kept to 7 decimals', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const made = await tenant.call(admin, 'POST', DEPOTS, { body: { name: '  Bodega Quilicura ', address: { text: ' Frei Montalva 9950 ', latitude: -33.360212345678, longitude: -70.7271 } } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      name: 'Bodega Quilicura',
      address: { text: 'Frei Montalva 9950', latitude: -33.3602123, longitude: -70.7271 },
      version: 1,
      createdAt: expect.stringMatching(ISO),
      updatedAt: made.body.createdAt,
    });
    expect(made.headers.get('location')).toBe(`${DEPOTS}/${made.body.id}`);
    expect((await tenant.call(admin, 'GET', `${DEPOTS}/${made.body.id}`)).body).toEqual(made.body);
    expect((await tenant.call(admin, 'GET', DEPOTS)).body).toEqual({ items: [made.body], nextCursor: null });
    // The domain read the preview uses.
    expect(await runAs(OPERATOR, () => getDepot(tenant.id, made.body.id))).toEqual(made.body);
  });

  it('pages the list oldest first with limit and after; nextCursor null on the last page; limit over 100 is 400', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await tenant.call(admin, 'POST', DEPOTS, { body: depot(`Bodega ${i}`) })).body.id);
    const first = await tenant.call(admin, 'GET', `${DEPOTS}?limit=2`);
    expect([first.body.items.map((d: { id: string }) => d.id), first.body.nextCursor]).toEqual([ids.slice(0, 2), ids[1]]);
    const second = await tenant.call(admin, 'GET', `${DEPOTS}?limit=2&after=${ids[1]}`);
    expect([second.body.items.map((d: { id: string }) => d.id), second.body.nextCursor]).toEqual([ids.slice(2, 4), ids[3]]);
    const last = await tenant.call(admin, 'GET', `${DEPOTS}?limit=2&after=${ids[3]}`);
    expect([last.body.items.map((d: { id: string }) => d.id), last.body.nextCursor]).toEqual([[ids[4]], null]);
    expect((await tenant.call(admin, 'GET', `${DEPOTS}?limit=100`)).body.items).toHaveLength(5);
    const over = await tenant.call(admin, 'GET', `${DEPOTS}?limit=101`);
    expect([over.status, over.body.errors.map((e: { path: string }) => e.path)]).toEqual([400, ['query.limit']]);
  });

  it('changes name and address with the current version; a stale version is 409 and changes nothing; an unknown id is 404', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const made = (await tenant.call(admin, 'POST', DEPOTS, { body: depot() })).body;
    const renamed = await tenant.call(admin, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 1, name: 'Centro de distribución Norte' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Centro de distribución Norte', address: made.address, version: 2, createdAt: made.createdAt });
    const moved = await tenant.call(admin, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 2, address: { text: 'Camino Lo Boza 120, Pudahuel', latitude: -33.41, longitude: -70.78 } } });
    expect(moved.body).toMatchObject({ name: 'Centro de distribución Norte', address: { text: 'Camino Lo Boza 120, Pudahuel', latitude: -33.41, longitude: -70.78 }, version: 3 });
    const stale = await tenant.call(admin, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 2, name: 'Otro' } });
    expect([stale.status, stale.body.code, stale.body.currentVersion]).toEqual([409, 'version_mismatch', 3]);
    expect((await tenant.call(admin, 'GET', `${DEPOTS}/${made.id}`)).body).toEqual(moved.body);
    const unknown = randomUUID();
    expect((await tenant.call(admin, 'GET', `${DEPOTS}/${unknown}`)).status).toBe(404);
    const missing = await tenant.call(admin, 'PATCH', `${DEPOTS}/${unknown}`, { body: { version: 1, name: 'X' } });
    expect([missing.status, missing.body.code]).toEqual([404, 'not_found']);
    await expect(runAs(OPERATOR, () => getDepot(tenant.id, unknown))).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses malformed bodies with 400 naming each field, storing nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const cases: Array<[unknown, string[]]> = [
      [{ ...depot(), name: '' }, ['body.name']],
      [{ ...depot(), name: 'x'.repeat(121) }, ['body.name']],
      [{ name: 'Bodega' }, ['body.address']],
      [{ name: 'Bodega', address: { text: 'x'.repeat(301), latitude: -91, longitude: 181 } }, ['body.address.text', 'body.address.latitude', 'body.address.longitude']],
      [{ ...depot(), phone: '+56' }, ['body.phone']],
    ];
    for (const [body, paths] of cases) {
      const answer = await tenant.call(admin, 'POST', DEPOTS, { body });
      expect([answer.status, answer.body.code, answer.body.errors.map((e: { path: string }) => e.path)], JSON.stringify(body)).toEqual([400, 'validation_failed', paths]);
    }
    const made = (await tenant.call(admin, 'POST', DEPOTS, { body: depot() })).body;
    const patch = await tenant.call(admin, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 1, address: { text: 'Sin coordenadas' } } });
    expect([patch.status, patch.body.errors.map((e: { path: string }) => e.path)]).toEqual([400, ['body.address.latitude', 'body.address.longitude']]);
    expect((await tenant.call(admin, 'GET', DEPOTS)).body.items).toEqual([made]);
  });

  it('admins write; every role reads; an operator or driver cannot create or change (403)', async () => {
    const tenant = await TestTenant.create(stack());
    const [admin, operator, driver, viewer] = await Promise.all([tenant.member('admin'), tenant.member('operator'), tenant.member('driver'), tenant.member('viewer')]);
    const made = (await tenant.call(admin, 'POST', DEPOTS, { body: depot() })).body;
    for (const member of [operator, driver, viewer]) {
      const create = await tenant.call(member, 'POST', DEPOTS, { body: depot('Bodega ajena') });
      expect([create.status, create.body.code], member.role).toEqual([403, 'role_forbidden']);
      const change = await tenant.call(member, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 1, name: 'Otra' } });
      expect(change.status, member.role).toBe(403);
      expect((await tenant.call(member, 'GET', `${DEPOTS}/${made.id}`)).body, member.role).toEqual(made);
      expect((await tenant.call(member, 'GET', DEPOTS)).body.items, member.role).toEqual([made]);
    }
  });

  it('replays a create with the same idempotency key (one depot); the key with another body is 422', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const key = randomUUID();
    const first = await tenant.call(admin, 'POST', DEPOTS, { body: depot(), idempotencyKey: key });
    const again = await tenant.call(admin, 'POST', DEPOTS, { body: depot(), idempotencyKey: key });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    // Racing twins with one key make one depot too.
    const twinKey = randomUUID();
    const twins = await Promise.all([1, 2, 3].map(() => tenant.call(admin, 'POST', DEPOTS, { body: depot('Bodega Maipú'), idempotencyKey: twinKey })));
    expect(new Set(twins.filter((t) => t.status === 201).map((t) => t.body.id)).size).toBe(1);
    const other = await tenant.call(admin, 'POST', DEPOTS, { body: depot('Otra bodega'), idempotencyKey: key });
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
    const missingKey = await tenant.call(admin, 'POST', DEPOTS, { body: depot(), idempotencyKey: false });
    expect([missingKey.status, missingKey.body.code]).toEqual([400, 'idempotency_key_missing']);
    expect((await tenant.call(admin, 'GET', DEPOTS)).body.items.map((d: { name: string }) => d.name)).toEqual(['Bodega Quilicura', 'Bodega Maipú']);
  });

  it('another tenant’s depot is 404 on read and change, and absent from the list', async () => {
    const owner = await TestTenant.create(stack());
    const stranger = await TestTenant.create(stack());
    const [ownerAdmin, strangerAdmin] = await Promise.all([owner.member('admin'), stranger.member('admin')]);
    const made = (await owner.call(ownerAdmin, 'POST', DEPOTS, { body: depot() })).body;
    const read = await stranger.call(strangerAdmin, 'GET', `${DEPOTS}/${made.id}`);
    expect([read.status, read.body.code]).toEqual([404, 'not_found']);
    expect((await stranger.call(strangerAdmin, 'PATCH', `${DEPOTS}/${made.id}`, { body: { version: 1, name: 'Tomada' } })).status).toBe(404);
    expect((await stranger.call(strangerAdmin, 'GET', DEPOTS)).body).toEqual({ items: [], nextCursor: null });
    await expect(runAs(OPERATOR, () => getDepot(stranger.id, made.id))).rejects.toMatchObject({ status: 404 });
    expect((await owner.call(ownerAdmin, 'GET', `${DEPOTS}/${made.id}`)).body).toEqual(made);
  });
});
