import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { addReading } from '../../functions/fleet/odometer-digest.ts';
import { addDaysTo, daysBetween, localDate } from '../../shared/calendar.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();

const santiagoToday = () => localDate(new Date(), 'America/Santiago');
/** Mid-afternoon UTC of a past day: midday in Chile whatever the season, far from both midnights. */
const afternoonOf = (day: string) => `${day}T16:00:00.000Z`;
const noCare = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: null };

const vehicle = async (tenant: TestTenant, admin: TestMember, plate = `${randomUUID().slice(0, 4)}${Math.floor(Math.random() * 90 + 10)}`.toUpperCase(), label = 'Camión 1') => {
  const created = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate, label } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; plate: string; label: string };
};

describe('vehicle care record', () => {
  it('starts at version 0 with no care, then keeps its own version apart from the vehicle’s', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const empty = await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ vehicleId: v.id, label: v.label, active: true, care: null, version: 0, updatedAt: null, odometer: null });

    const care = { technicalReview: '2027-05-31', circulationPermit: '2027-03-31', soap: '2027-03-31', service: null, serviceKm: 150000 };
    const put = await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...care } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ vehicleId: v.id, care, version: 1, odometer: null });
    expect(put.body.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body).toEqual(put.body);
    // The vehicle's own version did not move, and a vehicle change leaves the care record alone.
    expect((await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${v.id}`, { body: { version: 1, label: 'Camión Sur' } })).status).toBe(200);
    const after = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body;
    expect(after).toMatchObject({ label: 'Camión Sur', care, version: 1 });
  });

  it('refuses a stale version with 409 and the current version, changing nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const first = await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare, soap: '2027-03-31' } });
    expect(first.status).toBe(200);
    for (const version of [0, 2]) {
      const stale = await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version, ...noCare, soap: '2028-03-31' } });
      expect(stale.status, stale.text).toBe(409);
      expect(stale.body).toMatchObject({ code: 'version_mismatch', currentVersion: 1 });
    }
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body).toMatchObject({ version: 1, care: { soap: '2027-03-31' } });
  });

  it('lets exactly one of two writes of the same version win', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const results = await Promise.all(
      ['2027-01-31', '2027-02-28'].map((technicalReview) => tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare, technicalReview } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!.body;
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body).toMatchObject({ version: 1, care: winner.care });
  });

  it('refuses bad input with 400 naming each field', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const bad = await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, {
      body: { version: -1, technicalReview: '2027-02-30', circulationPermit: '31-03-2027', soap: null, service: null, serviceKm: 3_000_000, extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.circulationPermit', 'body.extra', 'body.serviceKm', 'body.technicalReview', 'body.version']);
    const missing = await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, soap: null } });
    expect(missing.status).toBe(400);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.version).toBe(0);
  });

  it('answers 404 for another tenant’s vehicle on every care operation', async () => {
    const owner = await TestTenant.create(stack());
    const stranger = await TestTenant.create(stack());
    const ownerAdmin = await owner.member('admin');
    const strangerAdmin = await stranger.member('admin');
    const v = await vehicle(owner, ownerAdmin);
    expect((await stranger.call(strangerAdmin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).status).toBe(404);
    expect((await stranger.call(strangerAdmin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare } })).status).toBe(404);
    const odo = await stranger.call(strangerAdmin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 1, readAt: new Date().toISOString() } });
    expect(odo.status).toBe(404);
    expect(odo.body.code).toBe('not_found');
    expect((await stranger.call(strangerAdmin, 'GET', `/v1/fleet/vehicles/${v.id}/care/suggestions`)).status).toBe(404);
    expect((await stranger.call(strangerAdmin, 'GET', '/v1/fleet/care')).body.vehicles).toEqual([]);
    expect((await owner.call(ownerAdmin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body).toMatchObject({ version: 0, odometer: null });
  });

  it('lets drivers post readings only, viewers read only, operators do both', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver');
    const viewer = await tenant.member('viewer');
    const v = await vehicle(tenant, admin);
    const readAt = new Date().toISOString();
    expect((await tenant.call(driver, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 100, readAt } })).status).toBe(201);
    for (const [method, path] of [['GET', `/v1/fleet/vehicles/${v.id}/care`], ['GET', '/v1/fleet/care'], ['GET', `/v1/fleet/vehicles/${v.id}/care/suggestions`]] as const) {
      expect((await tenant.call(viewer, method, path)).status).toBe(200);
      const refused = await tenant.call(driver, method, path);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('role_forbidden');
    }
    expect((await tenant.call(viewer, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare } })).body.code).toBe('role_forbidden');
    expect((await tenant.call(driver, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare } })).status).toBe(403);
    expect((await tenant.call(viewer, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 200, readAt } })).status).toBe(403);
    expect((await tenant.call(operator, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare } })).status).toBe(200);
    expect((await tenant.call(operator, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 200, readAt: new Date().toISOString() } })).status).toBe(201);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toMatchObject({ lastKm: 200, readings: 2 });
  });
});

describe('odometer readings', () => {
  it('never go backwards in either direction of time', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const today = santiagoToday();
    const post = (km: number, day: string) => tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km, readAt: afternoonOf(day) } });
    expect((await post(10_000, addDaysTo(today, -20))).status).toBe(201);
    expect((await post(12_000, addDaysTo(today, -10))).status).toBe(201);
    // Later in time but lower than the reading before it.
    const lower = await post(9_000, addDaysTo(today, -5));
    expect(lower.status, lower.text).toBe(422);
    expect(lower.body).toMatchObject({ code: 'odometer_backwards', errors: [{ path: 'body.km' }] });
    // Earlier in time but higher than the reading after it.
    const higher = await post(13_000, addDaysTo(today, -30));
    expect(higher.status).toBe(422);
    expect(higher.body.code).toBe('odometer_backwards');
    // Between two readings, within their values: accepted, and the last reading stays the newest.
    const between = await post(11_000, addDaysTo(today, -15));
    expect(between.status, between.text).toBe(201);
    expect(between.body).toMatchObject({ lastKm: 12_000, lastReadAt: afternoonOf(addDaysTo(today, -10)), readings: 3 });
    // Above the newest reading of a day that is between two others but out of order with them.
    expect((await post(11_500, addDaysTo(today, -16))).body.code).toBe('odometer_backwards');
    const view = (await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer;
    // 2,000 km over the 10 days from the oldest to the newest reading of the window.
    expect(view).toEqual({ lastKm: 12_000, lastReadAt: afternoonOf(addDaysTo(today, -10)), dailyKm: 200, readings: 3 });
  });

  it('refuses a reading in the future with 422', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const future = await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 5, readAt: new Date(Date.now() + 10 * 60_000).toISOString() } });
    expect(future.status).toBe(422);
    expect(future.body).toMatchObject({ code: 'odometer_in_future', errors: [{ path: 'body.readAt' }] });
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toBeNull();
  });

  it('records a reading once however often its idempotency key is sent', async () => {
    const tenant = await TestTenant.create(stack());
    const driver = await tenant.member('driver');
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const key = randomUUID();
    const body = { km: 42_000, readAt: new Date(Date.now() - 60_000).toISOString() };
    const first = await tenant.call(driver, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body, idempotencyKey: key });
    expect(first.status, first.text).toBe(201);
    const again = await tenant.call(driver, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body, idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await tenant.call(driver, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { ...body, km: 42_001 }, idempotencyKey: key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const missing = await tenant.call(driver, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body, idempotencyKey: false });
    expect(missing.body.code).toBe('idempotency_key_missing');
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer).toMatchObject({ lastKm: 42_000, readings: 1 });
  });

  it('keeps the order when two readings race: one commits, the other is refused or in order', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin);
    const today = santiagoToday();
    // Each alone would be accepted; together they break the order (later, but lower).
    const results = await Promise.all([
      tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 5_000, readAt: afternoonOf(addDaysTo(today, -3)) } }),
      tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 4_000, readAt: afternoonOf(addDaysTo(today, -2)) } }),
    ]);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect([409, 422]).toContain(results.find((r) => r.status !== 201)!.status);
    expect((await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care`)).body.odometer.readings).toBe(1);
  });
});

describe('care list', () => {
  it('lists due items of active vehicles by daysLeft then label, with every vehicle', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const viewer = await tenant.member('viewer');
    const b = await vehicle(tenant, admin, 'BBCC10', 'Bravo');
    const a = await vehicle(tenant, admin, 'BBCC11', 'Alfa');
    const off = await vehicle(tenant, admin, 'BBCC12', 'Inactivo');
    const idle = await vehicle(tenant, admin, 'BBCC13', 'Sin cuidados');
    const today = santiagoToday();
    const soon = addDaysTo(today, 10);
    const past = addDaysTo(today, -5);
    const later = addDaysTo(today, 60);
    expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${b.id}/care`, { body: { version: 0, ...noCare, technicalReview: soon, soap: past, service: later } })).status).toBe(200);
    expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${a.id}/care`, { body: { version: 0, ...noCare, circulationPermit: soon, serviceKm: 100_000 } })).status).toBe(200);
    expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${off.id}/care`, { body: { version: 0, ...noCare, soap: past } })).status).toBe(200);
    expect((await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${off.id}`, { body: { version: 1, active: false } })).status).toBe(200);
    // Alfa: 500 km a day over 10 days; last read yesterday at 99,000 → today about 99,500.
    for (const [km, day] of [[94_000, addDaysTo(today, -11)], [99_000, addDaysTo(today, -1)]] as const) {
      expect((await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${a.id}/odometer`, { body: { km, readAt: afternoonOf(day) } })).status).toBe(201);
    }
    const list = await tenant.call(viewer, 'GET', '/v1/fleet/care');
    expect(list.status, list.text).toBe(200);
    const body = list.body;
    expect(body.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(body.vehicles.map((x: { vehicleId: string }) => x.vehicleId)).toEqual([b.id, a.id, off.id, idle.id]);
    expect(body.vehicles[3]).toEqual({ vehicleId: idle.id, label: 'Sin cuidados', active: true, care: null, version: 0, updatedAt: null, odometer: null });
    const d = (date: string) => daysBetween(body.today, date);
    const elapsed = daysBetween(addDaysTo(today, -1), body.today);
    const estimatedKm = 99_000 + 500 * elapsed;
    expect(body.due.map((i: any) => [i.label, i.item, i.status, i.daysLeft])).toEqual([
      ['Bravo', 'soap', 'expired', d(past)],
      ['Alfa', 'service_km', 'soon', d(addDaysTo(today, 1))],
      ['Alfa', 'circulation_permit', 'soon', d(soon)],
      ['Bravo', 'technical_review', 'soon', d(soon)],
    ]);
    expect(body.due[0]).toMatchObject({ vehicleId: b.id, date: past, km: null, attention: true });
    expect(body.due[0].text).toMatch(/^SOAP de Bravo: venció hace \d+ días/);
    expect(body.due[1]).toMatchObject({ km: { dueKm: 100_000, estimatedKm, leftKm: 100_000 - estimatedKm }, attention: false });
    expect(body.due[1].text).toContain('faltan');
    expect(body.kmLimited).toBe(false);
    expect(body.rules.version).toBe('cl-1');
    expect(body.odometerRules).toEqual({ windowDays: 90, minReadings: 2 });
  });

  it('marks kmLimited when a vehicle with serviceKm has no daily distance', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin, 'KMLM20', 'Furgón');
    expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare, serviceKm: 50_000 } })).status).toBe(200);
    const none = (await tenant.call(admin, 'GET', '/v1/fleet/care')).body;
    expect(none).toMatchObject({ kmLimited: true, due: [] });
    expect((await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${v.id}/odometer`, { body: { km: 50_200, readAt: new Date(Date.now() - 60_000).toISOString() } })).status).toBe(201);
    const one = (await tenant.call(admin, 'GET', '/v1/fleet/care')).body;
    expect(one.kmLimited).toBe(true);
    expect(one.due).toEqual([
      expect.objectContaining({ item: 'service_km', date: one.today, daysLeft: 0, status: 'expired', km: { dueKm: 50_000, estimatedKm: 50_200, leftKm: -200 }, attention: true }),
    ]);
    expect(one.due[0].text).toContain('según la última lectura');
  });

  it('lists vehicles whose readings give an average of 0 or less on their last reading, with no projection', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const today = santiagoToday();
    const still = await vehicle(tenant, admin, 'ZERO10', 'Quieto');
    const back = await vehicle(tenant, admin, 'NEGA10', 'Reversa');
    for (const v of [still, back]) expect((await tenant.call(admin, 'PUT', `/v1/fleet/vehicles/${v.id}/care`, { body: { version: 0, ...noCare, serviceKm: 49_500 } })).status).toBe(200);
    // Quieto did not move in 9 days: dailyKm 0.
    for (const day of [addDaysTo(today, -10), addDaysTo(today, -1)]) {
      expect((await tenant.call(admin, 'POST', `/v1/fleet/vehicles/${still.id}/odometer`, { body: { km: 49_000, readAt: afternoonOf(day) } })).status).toBe(201);
    }
    // Reversa's readings went backwards (as two racing readings could once store them): dailyKm < 0.
    let digest = addReading(undefined, { km: 50_000, readAt: afternoonOf(addDaysTo(today, -10)) }, today, 'America/Santiago');
    digest = addReading(digest, { km: 49_000, readAt: afternoonOf(addDaysTo(today, -1)) }, today, 'America/Santiago');
    await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.care(tenant.id, back.id), UpdateExpression: 'SET odometer = :d, odometerSeq = :s', ExpressionAttributeValues: { ':d': digest, ':s': 2 } }));

    const list = await tenant.call(admin, 'GET', '/v1/fleet/care');
    expect(list.status, list.text).toBe(200);
    expect(list.body.vehicles.map((v: { odometer: { dailyKm: number } }) => Math.sign(v.odometer.dailyKm))).toEqual([0, -1]);
    expect(list.body.kmLimited).toBe(true);
    const km = { dueKm: 49_500, estimatedKm: 49_000, leftKm: 500 };
    expect(list.body.due).toEqual([
      expect.objectContaining({ label: 'Quieto', item: 'service_km', date: list.body.today, daysLeft: 0, status: 'soon', km }),
      expect.objectContaining({ label: 'Reversa', item: 'service_km', date: list.body.today, daysLeft: 0, status: 'soon', km }),
    ]);
    for (const item of list.body.due) expect(item.text).toContain('según la última lectura');
  });

  it('uses the tenant’s time zone for today', async () => {
    // Of these two zones, one always has another date than Santiago: the test can tell them apart.
    const timeZone = ['Pacific/Kiritimati', 'Pacific/Pago_Pago'].find((zone) => localDate(new Date(), zone) !== santiagoToday())!;
    const tenant = await TestTenant.create(stack(), 'Islas Ltd', timeZone);
    const admin = await tenant.member('admin');
    const before = localDate(new Date(), timeZone);
    const list = (await tenant.call(admin, 'GET', '/v1/fleet/care')).body;
    expect([before, localDate(new Date(), timeZone)]).toContain(list.today);
    expect(list.today).not.toBe(santiagoToday());
    expect(list.rules.today).toContain(timeZone);
  });

  it('suggests dates from the plate’s last digit and the next March 31', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const v = await vehicle(tenant, admin, 'GHJK-37', 'Camioneta');
    const s = await tenant.call(admin, 'GET', `/v1/fleet/vehicles/${v.id}/care/suggestions`);
    expect(s.status).toBe(200);
    const today = santiagoToday();
    const year = Number(today.slice(0, 4));
    const march = `${year}-03-31` >= today ? `${year}-03-31` : `${year + 1}-03-31`;
    const october = `${year}-10-31` >= today ? `${year}-10-31` : `${year + 1}-10-31`;
    expect(s.body).toEqual({ technicalReview: october, circulationPermit: march, soap: march });
  });
});
