import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { addDaysTo, localDate } from '../../shared/calendar.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { routeWithOrders } from './operations/support.ts';

const stack = useLocalStack();

const santiagoToday = () => localDate(new Date(), 'America/Santiago');
/** Mid-afternoon UTC of a past day: midday in Chile whatever the season, far from both midnights. */
const afternoonOf = (day: string) => `${day}T16:00:00.000Z`;

/** DELETE is idempotent here (decisions 11): it takes a key like every change. */
const remove = (tenant: TestTenant, by: TestMember, vehicleId: string, readingId: string, idempotencyKey: string = randomUUID()) =>
  tenant.call(by, 'DELETE', `/v1/fleet/vehicles/${vehicleId}/odometer/readings/${readingId}`, { idempotencyKey });

const vehicle = async (tenant: TestTenant, admin: TestMember) => {
  const created = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: `CR${randomUUID().slice(0, 4)}`.toUpperCase(), label: 'Furgón 2' } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string };
};

describe('odometer corrections', () => {
  it('lists readings newest first with who posted them, paged by before and limit', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const v = await vehicle(tenant, admin);
    const today = santiagoToday();
    const posted = [];
    for (const [i, km] of [1_000, 1_500, 2_000].entries()) {
      const by = i === 1 ? operator : admin;
      const r = await tenant.call(by, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km, readAt: afternoonOf(addDaysTo(today, -10 + i)) } });
      expect(r.status, r.text).toBe(201);
      expect(r.body.readingId).toMatch(/^[0-9a-f-]{36}$/);
      posted.push({ readingId: r.body.readingId, km, readAt: afternoonOf(addDaysTo(today, -10 + i)), recordedBy: by.id });
    }
    const first = await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.items).toMatchObject([posted[2], posted[1]]);
    expect(first.body.items[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(first.body.nextCursor).toBe(posted[1].readingId);
    const second = await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?limit=2&before=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ items: [posted[0]], nextCursor: null });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?limit=101`)).status).toBe(400);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?before=${randomUUID()}`)).body).toMatchObject({ code: 'unknown_cursor', errors: [{ path: 'query.before' }] });
    // A cursor whose reading was removed meanwhile still pages on from where it was.
    expect((await remove(tenant, admin, v.id, posted[1].readingId)).status).toBe(204);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?limit=2&before=${posted[1].readingId}`)).body).toMatchObject({ items: [posted[0]], nextCursor: null });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${randomUUID()}/odometer/readings`)).status).toBe(404);
  });

  it('removes a wrong reading of 2,999,999 km: the view and the care list are as if it had never been posted', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const v = await vehicle(tenant, admin);
    const today = santiagoToday();
    const post = (km: number, readAt: string) => tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km, readAt } });
    expect((await post(10_000, afternoonOf(addDaysTo(today, -20)))).status).toBe(201);
    expect((await post(12_000, afternoonOf(addDaysTo(today, -10)))).status).toBe(201);
    const care = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: 12_500 };
    expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...care } })).status).toBe(200);
    const before = (await tenant.call(admin, 'GET', '/v1/fleet/care')).body;
    const wrong = await post(2_999_999, afternoonOf(addDaysTo(today, -5)));
    expect(wrong.status, wrong.text).toBe(201);
    // The typo blocks every genuine reading after it and makes the service look long overdue.
    expect((await post(12_900, afternoonOf(addDaysTo(today, -1)))).body.code).toBe('odometer_backwards');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/care')).body.due).toMatchObject([{ item: 'service_km', status: 'expired' }]);

    expect((await remove(tenant, operator, v.id, wrong.body.readingId)).status).toBe(403);
    const key = randomUUID();
    const removed = await remove(tenant, admin, v.id, wrong.body.readingId, key);
    expect(removed.status, removed.text).toBe(204);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toEqual({ lastKm: 12_000, lastReadAt: afternoonOf(addDaysTo(today, -10)), dailyKm: 200, readings: 2 });
    expect((await tenant.call(admin, 'GET', '/v1/fleet/care')).body).toEqual(before);
    // Sent again under its key: a replay of the same answer; under another key: 404, as for destinations (decisions 19).
    expect((await remove(tenant, admin, v.id, wrong.body.readingId, key)).status).toBe(204);
    const again = await remove(tenant, admin, v.id, wrong.body.readingId);
    expect([again.status, again.body.code], again.text).toEqual([404, 'not_found']);
    expect((await tenant.call(admin, 'DELETE', `/v1/fleet/vehicles/${v.id}/odometer/readings/${wrong.body.readingId}`, { idempotencyKey: false })).status).toBe(400);

    const genuine = await post(12_900, afternoonOf(addDaysTo(today, -1)));
    expect(genuine.status, genuine.text).toBe(201);
    expect(genuine.body).toMatchObject({ lastKm: 12_900, readings: 3 });
    const listed = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings`)).body.items;
    expect(listed.map((r: { km: number }) => r.km)).toEqual([12_900, 12_000, 10_000]);

    const audit = await tenant.call(admin, 'GET', `/v1/audit?resourceId=${v.id}&action=deleteOdometerReading`);
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.items).toEqual([expect.objectContaining({ action: 'deleteOdometerReading', resourceId: v.id, actorId: admin.id, requestId: removed.headers.get('x-request-id') })]);
  });

  it('answers 404 for a reading the vehicle never had, another vehicle’s or another company’s, and removes nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const otherAdmin = await other.member('admin');
    const [mine, second] = [await vehicle(tenant, admin), await vehicle(tenant, admin)];
    const theirs = await vehicle(other, otherAdmin);
    const readAt = new Date().toISOString();
    const kept = await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${mine.id}/odometer`, { body: { km: 800, readAt } });
    const foreign = await other.call(otherAdmin, 'POST', `/v1/fleet/vehicles/${theirs.id}/odometer`, { body: { km: 900, readAt } });
    expect([kept.status, foreign.status]).toEqual([201, 201]);

    for (const [vehicleId, readingId] of [[mine.id, randomUUID()], [second.id, kept.body.readingId], [mine.id, foreign.body.readingId]]) {
      const answer = await remove(tenant, admin, vehicleId, readingId);
      expect(answer.status, answer.text).toBe(404);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${mine.id}/care`)).body.odometer).toMatchObject({ lastKm: 800, readings: 1 });
    expect((await other.call(otherAdmin, 'GET', `/v1/fleet/vehicles/${theirs.id}/care`)).body.odometer).toMatchObject({ lastKm: 900, readings: 1 });
    expect((await tenant.call(admin, 'GET', `/v1/audit?action=deleteOdometerReading`)).body.items).toEqual([]);
  });

  it('removes the only reading: the vehicle has no odometer again', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const only = await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 500, readAt: new Date().toISOString() } });
    expect((await remove(tenant, admin, v.id, only.body.readingId)).status).toBe(204);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toBeNull();
    expect((await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 100, readAt: new Date().toISOString() } })).status).toBe(201);
  });
});

describe('readings stored before corrections existed', () => {
  it('lists them with no recordedBy and removes them by id', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const today = santiagoToday();
    // Posted before references existed (functions/fleet/odometer-readings.ts: REFERENCES_SINCE).
    const readAt = '2026-11-24T16:00:00.000Z';
    const old = await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 7_000, readAt } });
    const kept = await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 7_300, readAt: afternoonOf(addDaysTo(today, -1)) } });
    // As stored before: no reference item, no recordedBy, recordedAt instead of createdAt.
    await table().send(new DeleteCommand({ TableName: tableName(), Key: keys.odometerReadingRef(tenant.id, v.id, old.body.readingId) }));
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.odometerReading(tenant.id, v.id, readAt, old.body.readingId),
        UpdateExpression: 'SET recordedAt = createdAt REMOVE recordedBy, createdAt',
      }),
    );
    const listed = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings`)).body.items;
    expect(listed[1]).toMatchObject({ readingId: old.body.readingId, km: 7_000, readAt, recordedBy: null, createdAt: expect.stringMatching(/^\d{4}-/) });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings?before=${kept.body.readingId}`)).body.items).toMatchObject([{ readingId: old.body.readingId }]);
    expect((await remove(tenant, admin, v.id, old.body.readingId)).status).toBe(204);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toMatchObject({ lastKm: 7_300, readings: 1, dailyKm: null });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/odometer/readings`)).body.items.map((r: { km: number }) => r.km)).toEqual([7_300]);
  });
});

describe('drivers’ odometer readings', () => {
  it('accepts them only for the vehicle of the driver’s route of today that is not cancelled', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const other = await tenant.member('driver');
    const today = santiagoToday();
    const { route } = await routeWithOrders(tenant, operator, driver, [[-33.45, -70.66]], { serviceDate: today });
    const { route: tomorrow } = await routeWithOrders(tenant, operator, driver, [[-33.46, -70.65]], { serviceDate: addDaysTo(today, 1) });
    const elsewhere = await vehicle(tenant, admin);
    const post = (by: TestMember, vehicleId: string, km: number) => tenant.call(by, 'POST', `/v1/fleet/vehicles/${vehicleId}/odometer`, { body: { km, readAt: new Date().toISOString() } });

    const own = await post(driver, route.fleetVehicleId, 100);
    expect(own.status, own.text).toBe(201);
    const listed = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${route.fleetVehicleId}/odometer/readings`)).body.items;
    expect(listed).toMatchObject([{ readingId: own.body.readingId, recordedBy: driver.id }]);
    for (const [by, vehicleId] of [[other, route.fleetVehicleId], [driver, elsewhere.id], [driver, tomorrow.fleetVehicleId]] as const) {
      const refused = await post(by, vehicleId, 200);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.code).toBe('not_assigned');
    }
    expect((await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: route.version } })).status).toBe(200);
    expect((await post(driver, route.fleetVehicleId, 300)).status).toBe(403);
    // Staff report any vehicle of the tenant.
    expect((await post(operator, route.fleetVehicleId, 300)).status).toBe(201);
  });
});
