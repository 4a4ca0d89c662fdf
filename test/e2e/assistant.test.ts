import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { TestTenant, type TestMember } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();

/** The calendar date in Santiago, as the service answers "hoy" for a tenant there. */
const santiagoDay = (offsetDays = 0) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + offsetDays * 86_400_000));

const ask = (tenant: TestTenant, member: TestMember, text: string) => tenant.call(member, 'POST', '/v1/assistant/questions', { body: { text } });

describe('POST /v1/assistant/questions', () => {
  it('classifies Spanish and English questions and resolves the tenant’s vehicle by plate or label', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const truck = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'BBCC12', label: 'Camión 3' } })).body;
    const van = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'KXLR45', label: 'Furgón Norte' } })).body;
    const driver = await tenant.member('driver');

    expect((await ask(tenant, driver, '¿Dónde está la patente bb-cc 12?')).body).toEqual({ question: 'where', vehicleId: truck.id, date: null });
    expect((await ask(tenant, driver, 'cuanto conbustible gasto el furgon norte ayer')).body).toEqual({ question: 'fuel', vehicleId: van.id, date: santiagoDay(-1) });
    expect((await ask(tenant, admin, 'Was KXLR45 speeding today?')).body).toEqual({ question: 'speed', vehicleId: van.id, date: santiagoDay() });
    expect((await ask(tenant, admin, 'km del camión 3 esta semana')).body).toMatchObject({ question: 'week', vehicleId: truck.id });
    expect((await ask(tenant, admin, 'vence la revision tecnica del camion 3?')).body).toMatchObject({ question: 'care', vehicleId: truck.id });
    expect((await ask(tenant, admin, 'hola, ¿cómo estás?')).body).toEqual({ question: null, vehicleId: null, date: null });
  });

  it('never resolves another tenant’s vehicle', async () => {
    const owner = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const ownerAdmin = await owner.member('admin');
    const otherAdmin = await other.member('admin');
    await owner.call(ownerAdmin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'GHJK77', label: 'Camión Sur' } });
    expect((await ask(other, otherAdmin, 'dónde está GHJK77')).body).toEqual({ question: 'where', vehicleId: null, date: null });
  });

  it('answers dates in the tenant’s own time zone', async () => {
    const tenant = await TestTenant.create(stack(), 'Kiwi Freight', 'Pacific/Auckland');
    const admin = await tenant.member('admin');
    const auckland = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Auckland', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    expect((await ask(tenant, admin, 'where was the fleet today')).body.date).toBe(auckland);
  });

  it('refuses a missing or ill-typed text with 400 and field paths', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const missing = await tenant.call(admin, 'POST', '/v1/assistant/questions', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toBe('body.text');
    expect((await tenant.call(admin, 'POST', '/v1/assistant/questions', { body: { text: 42 } })).status).toBe(400);
    expect((await tenant.call(admin, 'POST', '/v1/assistant/questions', { body: { text: 'x'.repeat(1001) } })).status).toBe(400);
  });
});

describe('POST /v1/assistant/asked and GET /v1/assistant/popular', () => {
  it('lists defaults for a new tenant, then the tenant’s most asked first, topped up to 6', async () => {
    const tenant = await TestTenant.create(stack());
    const viewer = await tenant.member('viewer');
    const fresh = await tenant.call(viewer, 'GET', '/v1/assistant/popular');
    expect(fresh.status).toBe(200);
    expect(fresh.body.items).toHaveLength(6);
    expect(fresh.body.items.every((i: { source: string }) => i.source === 'default')).toBe(true);

    const record = (question: string) => tenant.call(viewer, 'POST', '/v1/assistant/asked', { body: { question } });
    const recorded = await record('idle');
    expect(recorded.status).toBe(204);
    expect(recorded.text).toBe('');
    await Promise.all([record('idle'), record('idle'), record('month'), record('month'), record('outside')]);
    const popular = (await tenant.call(viewer, 'GET', '/v1/assistant/popular')).body.items;
    expect(popular.slice(0, 3)).toEqual([
      { question: 'idle', source: 'tenant' },
      { question: 'month', source: 'tenant' },
      { question: 'outside', source: 'tenant' },
    ]);
    expect(popular).toHaveLength(6);
    expect(popular.slice(3).every((i: { source: string }) => i.source === 'default')).toBe(true);
    expect(new Set(popular.map((i: { question: string }) => i.question)).size).toBe(6);
  });

  it('counts every one of 20 concurrent askers of one question, none refused (found by the load run)', async () => {
    const tenant = await TestTenant.create(stack());
    const viewer = await tenant.member('viewer');
    const answers = await Promise.all(Array.from({ length: 20 }, () => tenant.call(viewer, 'POST', '/v1/assistant/asked', { body: { question: 'idle' } })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(204));
    const day = new Date().toISOString().slice(0, 10);
    const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.askedCounter(tenant.id, day, 'idle'), ConsistentRead: true }));
    expect(Item?.asked).toBe(20);
  });

  it('keeps each tenant’s counts to itself and refuses an unknown kind', async () => {
    const tenant = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const otherAdmin = await other.member('admin');
    await tenant.call(admin, 'POST', '/v1/assistant/asked', { body: { question: 'care' } });
    const theirs = (await other.call(otherAdmin, 'GET', '/v1/assistant/popular')).body.items;
    expect(theirs.every((i: { source: string }) => i.source === 'default')).toBe(true);
    const unknown = await tenant.call(admin, 'POST', '/v1/assistant/asked', { body: { question: 'weather' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('body.question');
  });
});
