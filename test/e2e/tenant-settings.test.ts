import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { TestTenant, type TestMember } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { created, orderBody, tokenOf, waitForView } from './operations/support.ts';

const stack = useLocalStack();
const PATH = '/v1/tenant/settings';

const defaults = {
  timeZone: 'America/Santiago',
  region: 'CL-RM',
  trackingSpeedKmh: 25,
  trackingStopMinutes: 5,
  vehicleDocumentsPolicy: 'warn',
  dispatchGuidesRequiredToStart: false,
  planningLeadMinutes: 15,
};

const settingsOf = async (tenant: TestTenant, member: TestMember) => {
  const response = await tenant.call(member, 'GET', PATH);
  expect(response.status, response.text).toBe(200);
  return response.body;
};

const patch = (tenant: TestTenant, admin: TestMember, body: Record<string, unknown>, idempotencyKey: string | false = randomUUID()) =>
  tenant.call(admin, 'PATCH', PATH, { body, idempotencyKey });

describe('tenant settings', () => {
  it('every role reads the settings; a new tenant has the defaults at version 1', async () => {
    const tenant = await TestTenant.create(stack(), 'Distribuidora Atacama SpA');
    for (const role of ['admin', 'operator', 'driver', 'viewer'] as const) {
      const body = await settingsOf(tenant, await tenant.member(role));
      expect(body).toEqual({ name: 'Distribuidora Atacama SpA', ...defaults, version: 1, updatedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) });
    }
  });

  it('a tenant stored before the settings existed reads the defaults, and its first change names version 1', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    await runAs(OPERATOR, () =>
      table().send(new PutCommand({ TableName: tableName(), Item: { ...keys.tenant(tenant.id), entity: 'tenant', tenantId: tenant.id, name: 'Antigua SpA', timeZone: 'America/Santiago', createdAt: '2025-03-01T10:00:00.000Z' } })),
    );
    expect(await settingsOf(tenant, admin)).toEqual({ name: 'Antigua SpA', ...defaults, version: 1, updatedAt: '2025-03-01T10:00:00.000Z' });
    const changed = await patch(tenant, admin, { version: 1, trackingStopMinutes: 0 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Antigua SpA', trackingStopMinutes: 0, version: 2 });
  });

  it('an admin changes what the body names; the rest stays; the next read sees it', async () => {
    const tenant = await TestTenant.create(stack(), 'Frutas del Sur SpA');
    const admin = await tenant.member('admin');
    const before = await settingsOf(tenant, admin);
    const changed = await patch(tenant, admin, {
      version: 1,
      name: '  Frutas del Sur Ltda. ',
      timeZone: 'america/punta_arenas',
      region: 'cl-ma',
      trackingSpeedKmh: 40,
      trackingStopMinutes: 8,
      vehicleDocumentsPolicy: 'block',
      dispatchGuidesRequiredToStart: true,
      planningLeadMinutes: 0,
    });
    expect(changed.status, changed.text).toBe(200);
    const expected = {
      name: 'Frutas del Sur Ltda.',
      timeZone: 'America/Punta_Arenas',
      region: 'CL-MA',
      trackingSpeedKmh: 40,
      trackingStopMinutes: 8,
      vehicleDocumentsPolicy: 'block',
      dispatchGuidesRequiredToStart: true,
      planningLeadMinutes: 0,
      version: 2,
    };
    expect(changed.body).toMatchObject(expected);
    expect(Date.parse(changed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
    expect(await settingsOf(tenant, await tenant.member('viewer'))).toEqual(changed.body);

    const one = await patch(tenant, admin, { version: 2, vehicleDocumentsPolicy: 'ignore' });
    expect(one.body).toEqual({ ...changed.body, vehicleDocumentsPolicy: 'ignore', version: 3, updatedAt: expect.any(String) });
  });

  it('only an admin changes them', async () => {
    const tenant = await TestTenant.create(stack());
    for (const role of ['operator', 'driver', 'viewer'] as const) {
      const refused = await patch(tenant, await tenant.member(role), { version: 1, trackingSpeedKmh: 30 });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('role_forbidden');
    }
    expect((await settingsOf(tenant, await tenant.member('admin'))).version).toBe(1);
  });

  it('an unknown zone or region is 422 naming the field, and changes nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const zone = await patch(tenant, admin, { version: 1, timeZone: 'America/Valdivia', trackingSpeedKmh: 30 });
    expect(zone.status, zone.text).toBe(422);
    expect(zone.headers.get('content-type')).toBe('application/problem+json');
    expect(zone.body).toMatchObject({ code: 'unknown_setting_value', errors: [{ path: 'body.timeZone' }] });
    const region = await patch(tenant, admin, { version: 1, region: 'CL-XX' });
    expect(region.status).toBe(422);
    expect(region.body.errors).toEqual([{ path: 'body.region', message: expect.stringContaining('ISO 3166-2:CL') }]);
    const both = await patch(tenant, admin, { version: 1, timeZone: '+03:00', region: 'AR-B' });
    expect(both.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.timeZone', 'body.region']);
    expect(await settingsOf(tenant, admin)).toMatchObject({ ...defaults, version: 1 });
  });

  it('ill-typed or out-of-range values and unknown fields are 400, and change nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const bad: [Record<string, unknown>, string][] = [
      [{ version: 1, trackingSpeedKmh: 4 }, 'body.trackingSpeedKmh'],
      [{ version: 1, trackingSpeedKmh: 121 }, 'body.trackingSpeedKmh'],
      [{ version: 1, trackingSpeedKmh: 30.5 }, 'body.trackingSpeedKmh'],
      [{ version: 1, trackingStopMinutes: -1 }, 'body.trackingStopMinutes'],
      [{ version: 1, trackingStopMinutes: 61 }, 'body.trackingStopMinutes'],
      [{ version: 1, vehicleDocumentsPolicy: 'strict' }, 'body.vehicleDocumentsPolicy'],
      [{ version: 1, dispatchGuidesRequiredToStart: 'yes' }, 'body.dispatchGuidesRequiredToStart'],
      [{ version: 1, planningLeadMinutes: -1 }, 'body.planningLeadMinutes'],
      [{ version: 1, planningLeadMinutes: 241 }, 'body.planningLeadMinutes'],
      [{ version: 1, planningLeadMinutes: 7.5 }, 'body.planningLeadMinutes'],
      [{ version: 1, name: '   ' }, 'body.name'],
      [{ version: 1, currency: 'CLP' }, 'body.currency'],
      [{ trackingSpeedKmh: 30 }, 'body.version'],
    ];
    for (const [body, path] of bad) {
      const response = await patch(tenant, admin, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toContain(path);
    }
    // The edges of the ranges are accepted.
    expect((await patch(tenant, admin, { version: 1, trackingSpeedKmh: 5, trackingStopMinutes: 60 })).status).toBe(200);
    expect((await patch(tenant, admin, { version: 2, trackingSpeedKmh: 120, trackingStopMinutes: 0, planningLeadMinutes: 240 })).body).toMatchObject({
      trackingSpeedKmh: 120,
      trackingStopMinutes: 0,
      planningLeadMinutes: 240,
      version: 3,
    });
  });

  it('a stale version is 409 with the current one, and changes nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expect((await patch(tenant, admin, { version: 1, trackingSpeedKmh: 30 })).status).toBe(200);
    const stale = await patch(tenant, admin, { version: 1, trackingSpeedKmh: 60 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_mismatch', currentVersion: 2 });
    expect(await settingsOf(tenant, admin)).toMatchObject({ trackingSpeedKmh: 30, version: 2 });
  });

  it('two changes naming the same version: one wins, the other is 409', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const answers = await Promise.all([
      patch(tenant, admin, { version: 1, trackingSpeedKmh: 30 }),
      patch(tenant, admin, { version: 1, trackingSpeedKmh: 90 }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('version_mismatch');
    expect(await settingsOf(tenant, admin)).toEqual(winner.body);
    expect(winner.body.version).toBe(2);
  });

  it('needs an idempotency key; a repeat with the same key replays the answer and changes nothing more', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const missing = await patch(tenant, admin, { version: 1, trackingSpeedKmh: 30 }, false);
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('idempotency_key_missing');
    const key = randomUUID();
    const first = await patch(tenant, admin, { version: 1, trackingSpeedKmh: 30 }, key);
    const again = await patch(tenant, admin, { version: 1, trackingSpeedKmh: 30 }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await settingsOf(tenant, admin)).version).toBe(2);
    expect((await patch(tenant, admin, { version: 1, trackingSpeedKmh: 31 }, key)).body.code).toBe('idempotency_key_reused');
  });

  it('each change writes one audit entry naming the operation and the tenant', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const changed = await patch(tenant, admin, { version: 1, region: 'CL-BI' });
    expect(changed.status).toBe(200);
    expect((await patch(tenant, admin, { version: 1, region: 'CL-VS' })).status).toBe(409);
    const log = await tenant.call(admin, 'GET', `/v1/audit?resourceId=${tenant.id}`);
    expect(log.body.items).toEqual([
      expect.objectContaining({ action: 'updateTenantSettings', outcome: 'succeeded', resourceId: tenant.id, actorId: admin.id, requestId: changed.headers.get('x-request-id') }),
    ]);
  });

  it('the admin command line writes the same item: a rename keeps the settings and moves the version', async () => {
    const tenant = await TestTenant.create(stack(), 'Comercial Norte');
    const admin = await tenant.member('admin');
    expect((await patch(tenant, admin, { version: 1, vehicleDocumentsPolicy: 'block', trackingSpeedKmh: 50 })).status).toBe(200);
    await runAs(OPERATOR, () => putTenant({ id: tenant.id, name: 'Comercial Norte SpA' }));
    const read = await settingsOf(tenant, admin);
    expect(read).toMatchObject({ name: 'Comercial Norte SpA', vehicleDocumentsPolicy: 'block', trackingSpeedKmh: 50, timeZone: 'America/Santiago', version: 3 });
    // A client holding the version from before the rename does not overwrite it unseen.
    expect((await patch(tenant, admin, { version: 2, name: 'Otro' })).status).toBe(409);
  });

  it('the tracking ETA uses the speed setting, read again for each change of the view', async () => {
    const tenant = await TestTenant.create(stack());
    const [admin, operator, driver] = [await tenant.member('admin'), await tenant.member('operator'), await tenant.member('driver')];
    // One stop about 100 km north of the position the driver reports.
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody(`ETA-${Date.now()}`, -32.55, -70.66) }));
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] } }));
    created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
    const route = created(
      await tenant.call(operator, 'POST', '/v1/field/routes', {
        body: { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: `ETA${Date.now() % 100000}`, label: 'Camión' } },
      }),
    );
    expect((await patch(tenant, admin, { version: 1, trackingSpeedKmh: 5 })).status).toBe(200);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const position = (at: Date) => tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.45, longitude: -70.66, recordedAt: at.toISOString() } });
    const firstAt = new Date();
    expect((await position(firstAt)).status).toBe(202);
    const slow = await waitForView(stack(), tokenOf(order), (v) => v.eta !== null && v.approximatePosition?.updatedAt === firstAt.toISOString());
    // 100 km at 5 km/h: some 20 hours away.
    expect(Date.parse(slow.eta.from) - Date.now()).toBeGreaterThan(15 * 3600_000);

    expect((await patch(tenant, admin, { version: 2, trackingSpeedKmh: 120 })).status).toBe(200);
    const secondAt = new Date(firstAt.getTime() + 1000);
    expect((await position(secondAt)).status).toBe(202);
    const fast = await waitForView(stack(), tokenOf(order), (v) => v.approximatePosition?.updatedAt === secondAt.toISOString());
    // 100 km at 120 km/h: within the hour.
    expect(Date.parse(fast.eta.from) - Date.now()).toBeLessThan(3600_000);
  });
});
