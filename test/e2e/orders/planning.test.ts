import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { DEFAULT_TRACKING_STOP_MINUTES } from '../../../shared/tenancy/tenants.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { goodsOrder, ORDERS } from './support.ts';

const stack = useLocalStack();

describe('orders: the fields route planning reads (decisions 15)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  const create = (body: unknown, idempotencyKey?: string) => tenant.call(operator, 'POST', ORDERS, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });
  const all = async () => (await tenant.call(admin, 'GET', `${ORDERS}?limit=100`)).body.items as { id: string }[];

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
  });

  it('stores and answers windows (sorted), minutes, load and skills (de-duplicated); get, list and cancel show the same', async () => {
    const made = await create(
      goodsOrder('PL-1', {
        timeWindows: [
          { from: '14:00', to: '16:30' },
          { from: '08:00', to: '10:00' },
          { from: '10:01', to: '11:00' },
        ],
        serviceMinutes: 240,
        load: { weightKg: 12.345, volumeM3: 0.5 },
        skills: ['frío', ' refrigerado ', 'frío', 'Frío'],
      }),
    );
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      timeWindows: [
        { from: '08:00', to: '10:00' },
        { from: '10:01', to: '11:00' },
        { from: '14:00', to: '16:30' },
      ],
      serviceMinutes: 240,
      load: { weightKg: 12.345, volumeM3: 0.5 },
      skills: ['frío', 'refrigerado', 'Frío'],
    });
    expect((await tenant.call(admin, 'GET', `${ORDERS}/${made.body.id}`)).body).toEqual(made.body);
    expect((await all()).find((o) => o.id === made.body.id)).toEqual(made.body);
    const cancelled = await tenant.call(operator, 'POST', `${ORDERS}/${made.body.id}/cancel`, { body: { version: 1 } });
    expect(cancelled.status, cancelled.text).toBe(200);
    const { state: _s, version: _v, updatedAt: _u, cancelledAt: _c, ...kept } = made.body;
    expect(cancelled.body).toMatchObject(kept);
  });

  it('defaults: any time, the tenant’s trackingStopMinutes as it is at creation (kept after it changes), no load, no skills', async () => {
    const plain = await create(goodsOrder('PL-D1'));
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body).toMatchObject({ timeWindows: [], serviceMinutes: 5, load: { weightKg: 0, volumeM3: 0 }, skills: [] });

    const settings = (await tenant.call(admin, 'GET', '/v1/tenant/settings')).body;
    const changed = await tenant.call(admin, 'PATCH', '/v1/tenant/settings', { body: { version: settings.version, trackingStopMinutes: 12 } });
    expect(changed.status, changed.text).toBe(200);
    const later = await create(goodsOrder('PL-D2', { load: { volumeM3: 1.25 } }));
    expect(later.body).toMatchObject({ serviceMinutes: 12, load: { weightKg: 0, volumeM3: 1.25 } });
    const zero = await create(goodsOrder('PL-D3', { serviceMinutes: 0, load: { weightKg: 3 } }));
    expect(zero.body).toMatchObject({ serviceMinutes: 0, load: { weightKg: 3, volumeM3: 0 } });
    // Stored at creation: the next change of the setting moves neither order.
    await tenant.call(admin, 'PATCH', '/v1/tenant/settings', { body: { version: changed.body.version, trackingStopMinutes: 30 } });
    expect((await tenant.call(admin, 'GET', `${ORDERS}/${plain.body.id}`)).body.serviceMinutes).toBe(5);
    expect((await tenant.call(admin, 'GET', `${ORDERS}/${later.body.id}`)).body.serviceMinutes).toBe(12);
  });

  it('refuses each value that breaks a rule with 422 invalid_order naming the field, and stores nothing', async () => {
    const before = (await all()).length;
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ timeWindows: [{ from: '08:00', to: '10:00' }, { from: '09:30', to: '11:00' }] }, ['body.timeWindows.1']],
      [{ timeWindows: [{ from: '12:00', to: '13:00' }, { from: '08:00', to: '12:00' }] }, ['body.timeWindows.1']],
      [{ timeWindows: [{ from: '10:00', to: '10:00' }] }, ['body.timeWindows.0.to']],
      [{ timeWindows: [{ from: '11:00', to: '09:00' }] }, ['body.timeWindows.0.to']],
      [{ timeWindows: [{ from: '8:00', to: '24:00' }] }, ['body.timeWindows.0.from', 'body.timeWindows.0.to']],
      [{ timeWindows: ['06', '07', '08', '09'].map((hour) => ({ from: `${hour}:00`, to: `${hour}:30` })) }, ['body.timeWindows']],
      [{ serviceMinutes: 241 }, ['body.serviceMinutes']],
      [{ serviceMinutes: -1 }, ['body.serviceMinutes']],
      [{ serviceMinutes: 2.5 }, ['body.serviceMinutes']],
      [{ load: { weightKg: -0.001 } }, ['body.load.weightKg']],
      [{ load: { weightKg: 1, volumeM3: 0.0001 } }, ['body.load.volumeM3']],
      [{ load: { weightKg: 1.2345, volumeM3: 1e7 } }, ['body.load.weightKg', 'body.load.volumeM3']],
      [{ skills: Array.from({ length: 11 }, (_, i) => `skill-${i}`) }, ['body.skills']],
      [{ skills: ['ok', 'x'.repeat(41), '  '] }, ['body.skills.1', 'body.skills.2']],
      // Every problem at once.
      [{ timeWindows: [{ from: '09:00', to: '08:00' }], serviceMinutes: 300, load: { weightKg: -1 }, skills: [''] }, ['body.timeWindows.0.to', 'body.serviceMinutes', 'body.load.weightKg', 'body.skills.0']],
    ];
    for (const [over, paths] of cases) {
      const answer = await create(goodsOrder('PL-BAD', over));
      expect(answer.status, `${JSON.stringify(over)} ${answer.text}`).toBe(422);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect([answer.body.code, answer.body.errors.map((e: { path: string }) => e.path)], JSON.stringify(over)).toEqual(['invalid_order', paths]);
    }
    // Ten distinct skills (one sent twice, one of 40 characters) and windows a minute apart are accepted.
    const edge = await create(
      goodsOrder('PL-EDGE', {
        skills: [...Array.from({ length: 9 }, (_, i) => `s${i}`), 'y'.repeat(40), 's0'],
        timeWindows: [{ from: '00:00', to: '09:59' }, { from: '10:00', to: '23:59' }],
      }),
    );
    expect(edge.status, edge.text).toBe(201);
    expect(edge.body.skills).toHaveLength(10);
    expect((await all()).length).toBe(before + 1);
  });

  it('refuses ill-typed planning fields with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ timeWindows: { from: '08:00', to: '09:00' } }, 'body.timeWindows'],
      [{ timeWindows: [{ from: '08:00' }] }, 'body.timeWindows.0.to'],
      [{ timeWindows: [{ from: '08:00', to: '09:00', label: 'x' }] }, 'body.timeWindows.0.label'],
      [{ serviceMinutes: '10' }, 'body.serviceMinutes'],
      [{ load: { weightKg: '1' } }, 'body.load.weightKg'],
      [{ load: { grams: 1 } }, 'body.load.grams'],
      [{ skills: [1] }, 'body.skills.0'],
    ];
    for (const [over, path] of cases) {
      const answer = await create(goodsOrder('PL-400', over));
      expect([answer.status, answer.body.code, answer.body.errors?.map((e: { path: string }) => e.path)], path).toEqual([400, 'validation_failed', [path]]);
    }
  });

  it('replays an idempotent create with its planning fields and refuses the key with other ones', async () => {
    const key = randomUUID();
    const body = goodsOrder('PL-IDEM', { timeWindows: [{ from: '09:00', to: '12:00' }], skills: ['grúa'] });
    const first = await create(body, key);
    const again = await create(body, key);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const other = await create({ ...body, skills: ['frío'] }, key);
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('reads an order stored before the planning fields with any time, the default minutes, no load and no skills', async () => {
    const id = newId();
    const at = new Date().toISOString();
    await runAs(OPERATOR, () =>
      table().send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...opsKeys.order(tenant.id, id),
            entity: 'order',
            tenantId: tenant.id,
            orderId: id,
            reference: 'OLD-PL',
            recipient: { name: 'Rosa Díaz', phone: null, email: null },
            address: { text: 'Alameda 100', latitude: -33.44, longitude: -70.65 },
            serviceDate: '2026-11-20',
            lines: [],
            state: 'pending',
            trackingToken: 'B'.repeat(32),
            version: 1,
            createdAt: at,
            updatedAt: at,
          },
        }),
      ),
    );
    const read = await tenant.call(admin, 'GET', `${ORDERS}/${id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ timeWindows: [], serviceMinutes: DEFAULT_TRACKING_STOP_MINUTES, load: { weightKg: 0, volumeM3: 0 }, skills: [] });
  });
});
