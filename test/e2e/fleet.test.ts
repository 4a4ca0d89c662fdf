import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();

const newVehicle = (label = 'Camión 1') => ({ plate: `${randomUUID().slice(0, 4)} ${Math.floor(Math.random() * 90 + 10)}`.toUpperCase(), label });

describe('fleet vehicles', () => {
  it('registers a vehicle with a normalised plate, version 1 and a Location', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const created = await tenant.call(operator, 'POST', '/v1/fleet/vehicles', { body: { plate: 'bb-cc 12', label: ' Camión 1 ' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ plate: 'BBCC12', label: 'Camión 1', active: true, version: 1 });
    expect(created.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(created.headers.get('location')).toBe(`/v1/fleet/vehicles/${created.body.id}`);
    const read = await tenant.call(operator, 'GET', `/v1/fleet/vehicles/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it('pages the list with limit and after, nextCursor null on the last page', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: newVehicle(`Móvil ${i}`) })).body.id);
    const first = await tenant.call(admin, 'GET', '/v1/fleet/vehicles?limit=2');
    expect(first.body.items.map((v: { id: string }) => v.id)).toEqual(ids.slice(0, 2));
    expect(first.body.nextCursor).toBe(ids[1]);
    const second = await tenant.call(admin, 'GET', `/v1/fleet/vehicles?limit=2&after=${first.body.nextCursor}`);
    expect(second.body.items.map((v: { id: string }) => v.id)).toEqual(ids.slice(2, 4));
    const last = await tenant.call(admin, 'GET', `/v1/fleet/vehicles?limit=2&after=${second.body.nextCursor}`);
    expect(last.body).toEqual({ items: [expect.objectContaining({ id: ids[4] })], nextCursor: null });
    const exact = await tenant.call(admin, 'GET', `/v1/fleet/vehicles?limit=5`);
    expect(exact.body.items).toHaveLength(5);
    expect(exact.body.nextCursor).toBeNull();
    const all = await tenant.call(admin, 'GET', '/v1/fleet/vehicles');
    expect(all.body.items).toHaveLength(5);
  });

  it('changes a vehicle with the current version and refuses a stale one with 409', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const created = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: newVehicle() })).body;
    const changed = await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${created.id}`, { body: { version: 1, label: 'Camión Norte', active: false } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ label: 'Camión Norte', active: false, version: 2, plate: created.plate });
    const stale = await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${created.id}`, { body: { version: 1, label: 'Otro' } });
    expect(stale.status).toBe(409);
    expect(stale.headers.get('content-type')).toBe('application/problem+json');
    expect(stale.body).toMatchObject({ status: 409, code: 'version_mismatch', currentVersion: 2 });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${created.id}`)).body.label).toBe('Camión Norte');
  });

  it('keeps plates unique within a tenant but not across tenants', async () => {
    const tenant = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const otherAdmin = await other.member('admin');
    const a = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'KXLR-45', label: 'A' } });
    expect(a.status).toBe(201);
    const dup = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'kx lr 45', label: 'B' } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('plate_taken');
    expect((await other.call(otherAdmin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'KXLR45', label: 'C' } })).status).toBe(201);
    const b = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'ZZTT99', label: 'B' } });
    const rename = await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${b.body.id}`, { body: { version: 1, plate: 'KXLR45' } });
    expect(rename.body.code).toBe('plate_taken');
    // Moving A to a new plate frees the old one.
    expect((await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${a.body.id}`, { body: { version: 1, plate: 'AB1234' } })).status).toBe(200);
    expect((await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${b.body.id}`, { body: { version: 1, plate: 'KXLR45' } })).status).toBe(200);
  });

  it('answers 404 for another tenant’s vehicle, on read and on change', async () => {
    const owner = await TestTenant.create(stack());
    const stranger = await TestTenant.create(stack());
    const ownerAdmin = await owner.member('admin');
    const strangerAdmin = await stranger.member('admin');
    const vehicle = (await owner.call(ownerAdmin, 'POST', '/v1/fleet/vehicles', { body: newVehicle() })).body;
    const read = await stranger.call(strangerAdmin, 'GET', `/v1/fleet/vehicles/${vehicle.id}`);
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('not_found');
    const change = await stranger.call(strangerAdmin, 'PATCH', `/v1/fleet/vehicles/${vehicle.id}`, { body: { version: 1, label: 'hijacked' } });
    expect(change.status).toBe(404);
    expect((await stranger.call(strangerAdmin, 'GET', '/v1/fleet/vehicles')).body.items).toEqual([]);
    expect((await owner.call(ownerAdmin, 'GET', `/v1/fleet/vehicles/${vehicle.id}`)).body.label).toBe(vehicle.label);
  });

  it('lets viewers read but not write, and drivers do neither', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const viewer = await tenant.member('viewer');
    const driver = await tenant.member('driver');
    const vehicle = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: newVehicle() })).body;
    expect((await tenant.call(viewer, 'GET', `/v1/fleet/vehicles/${vehicle.id}`)).status).toBe(200);
    const write = await tenant.call(viewer, 'POST', '/v1/fleet/vehicles', { body: newVehicle() });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('role_forbidden');
    expect((await tenant.call(driver, 'GET', '/v1/fleet/vehicles')).status).toBe(403);
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).body.items).toHaveLength(1);
  });
});

describe('vehicle class, owner and region', () => {
  it('registers and changes class, ownerKind and region, answered on every read', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const truck = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { ...newVehicle('Camión 12 t'), class: 'cargo', ownerKind: 'person', region: 'CL-BI' } });
    expect(truck.status, truck.text).toBe(201);
    expect(truck.body).toMatchObject({ class: 'cargo', ownerKind: 'person', region: 'CL-BI' });
    const changed = await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${truck.body.id}`, { body: { version: 1, class: 'passenger', region: 'CL-NB' } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ class: 'passenger', ownerKind: 'person', region: 'CL-NB', version: 2 });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${truck.body.id}`)).body).toEqual(changed.body);
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).body.items).toEqual([changed.body]);
  });

  it('defaults to a company car in the tenant’s region, also for vehicles stored before', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.tenant(tenant.id), UpdateExpression: 'SET #r = :r', ExpressionAttributeNames: { '#r': 'region' }, ExpressionAttributeValues: { ':r': 'CL-VS' } }));
    const created = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: newVehicle() });
    expect(created.body).toMatchObject({ class: 'car', ownerKind: 'company', region: 'CL-VS' });
    // A vehicle stored before classes existed: no class, owner or region on the item.
    await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.vehicle(tenant.id, created.body.id), UpdateExpression: 'REMOVE #c, ownerKind, #r', ExpressionAttributeNames: { '#c': 'class', '#r': 'region' } }));
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${created.body.id}`)).body).toMatchObject({ class: 'car', ownerKind: 'company', region: 'CL-VS' });
  });

  it('refuses an unknown class, owner or region with 422 naming each field, changing nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const refused = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { ...newVehicle(), class: 'truck', ownerKind: 'state', region: 'CL-XX' } });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.code).toBe('invalid_vehicle');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.class', 'body.ownerKind', 'body.region']);
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).body.items).toEqual([]);
    const v = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: newVehicle() })).body;
    const patch = await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${v.id}`, { body: { version: 1, region: 'RM' } });
    expect(patch.status).toBe(422);
    expect(patch.body).toMatchObject({ code: 'invalid_vehicle', errors: [{ path: 'body.region' }] });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}`)).body).toMatchObject({ version: 1, region: 'CL-RM' });
  });
});
