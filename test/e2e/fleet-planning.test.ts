import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { findVehicles } from '../../functions/fleet/vehicles.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();
const VEHICLES = '/v1/fleet/vehicles';

let plates = 0;
const newVehicle = (over: Record<string, unknown> = {}) => ({ plate: `PL${String(++plates).padStart(4, '0')}`, label: `Camión ${plates}`, ...over });

describe('vehicles: capacity and skills (decisions 15)', () => {
  it('registers and changes capacity and skills, shown on get and list; a patch keeps the capacity member it leaves out', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const made = await tenant.call(operator, 'POST', VEHICLES, { body: newVehicle({ capacity: { weightKg: 3500.5, volumeM3: 18 }, skills: ['frío', 'grúa', 'frío', ' rampa '] }) });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ capacity: { weightKg: 3500.5, volumeM3: 18 }, skills: ['frío', 'grúa', 'rampa'] });
    expect((await tenant.call(operator, 'GET', `${VEHICLES}/${made.body.id}`)).body).toEqual(made.body);

    const patched = await tenant.call(operator, 'PATCH', `${VEHICLES}/${made.body.id}`, { body: { version: 1, capacity: { volumeM3: null } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ capacity: { weightKg: 3500.5, volumeM3: null }, skills: ['frío', 'grúa', 'rampa'], version: 2 });
    const again = await tenant.call(operator, 'PATCH', `${VEHICLES}/${made.body.id}`, { body: { version: 2, capacity: { weightKg: 900 }, skills: [] } });
    expect(again.body).toMatchObject({ capacity: { weightKg: 900, volumeM3: null }, skills: [], version: 3 });
    // A patch that names neither keeps both.
    const label = await tenant.call(operator, 'PATCH', `${VEHICLES}/${made.body.id}`, { body: { version: 3, label: 'Camión Norte' } });
    expect(label.body).toMatchObject({ capacity: { weightKg: 900, volumeM3: null }, skills: [] });
    expect((await tenant.call(operator, 'GET', VEHICLES)).body.items).toEqual([label.body]);
  });

  it('defaults to unlimited and no skills; a member left out of a new vehicle’s capacity is unlimited', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const plain = await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle() });
    expect(plain.body).toMatchObject({ capacity: { weightKg: null, volumeM3: null }, skills: [] });
    const half = await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle({ capacity: { volumeM3: 0.001 } }) });
    expect(half.body.capacity).toEqual({ weightKg: null, volumeM3: 0.001 });
    // A vehicle stored before these fields (or made by a route assignment) reads the defaults.
    await runAs(OPERATOR, () =>
      table().send(new UpdateCommand({ TableName: tableName(), Key: keys.vehicle(tenant.id, half.body.id), UpdateExpression: 'REMOVE #capacity, skills', ExpressionAttributeNames: { '#capacity': 'capacity' } })),
    );
    expect((await tenant.call(admin, 'GET', `${VEHICLES}/${half.body.id}`)).body).toMatchObject({ capacity: { weightKg: null, volumeM3: null }, skills: [] });
  });

  it('refuses each value that breaks a rule with 422 invalid_vehicle naming the field, on create and patch, changing nothing', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const kept = (await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle({ capacity: { weightKg: 100 }, skills: ['frío'] }) })).body;
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ capacity: { weightKg: 0 } }, ['body.capacity.weightKg']],
      [{ capacity: { weightKg: 10, volumeM3: -2 } }, ['body.capacity.volumeM3']],
      [{ capacity: { weightKg: 1.0005 } }, ['body.capacity.weightKg']],
      [{ skills: Array.from({ length: 21 }, (_, i) => `s${i}`) }, ['body.skills']],
      [{ skills: ['x'.repeat(41)] }, ['body.skills.0']],
      [{ class: 'truck', capacity: { volumeM3: 0 }, skills: [''] }, ['body.class', 'body.capacity.volumeM3', 'body.skills.0']],
    ];
    for (const [over, paths] of cases) {
      const created = await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle(over) });
      expect([created.status, created.body.code, created.body.errors?.map((e: { path: string }) => e.path)], JSON.stringify(over)).toEqual([422, 'invalid_vehicle', paths]);
      const patched = await tenant.call(admin, 'PATCH', `${VEHICLES}/${kept.id}`, { body: { version: 1, ...over } });
      expect([patched.status, patched.body.code, patched.body.errors?.map((e: { path: string }) => e.path)], JSON.stringify(over)).toEqual([422, 'invalid_vehicle', paths]);
    }
    // Twenty distinct skills are accepted; ill-typed fields are 400.
    const twenty = await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle({ skills: Array.from({ length: 20 }, (_, i) => `s${i}`) }) });
    expect(twenty.status, twenty.text).toBe(201);
    for (const [over, path] of [
      [{ capacity: { weightKg: '10' } }, 'body.capacity.weightKg'],
      [{ capacity: { tonnes: 1 } }, 'body.capacity.tonnes'],
      [{ skills: 'frío' }, 'body.skills'],
    ] as const) {
      const answer = await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle(over) });
      expect([answer.status, answer.body.code, answer.body.errors?.map((e: { path: string }) => e.path)]).toEqual([400, 'validation_failed', [path]]);
    }
    const list = (await tenant.call(admin, 'GET', VEHICLES)).body.items;
    expect(list.map((v: { id: string }) => v.id)).toEqual([kept.id, twenty.body.id]);
    expect(list[0]).toEqual(kept);
  });

  it('findVehicles reads many at once (more than one batch), leaving out unknown ids and other tenants’ vehicles', async () => {
    const tenant = await TestTenant.create(stack());
    const other = await TestTenant.create(stack());
    const [admin, otherAdmin] = await Promise.all([tenant.member('admin'), other.member('admin')]);
    const mine: { id: string }[] = [];
    for (let i = 0; i < 3; i++) mine.push((await tenant.call(admin, 'POST', VEHICLES, { body: newVehicle({ capacity: { weightKg: 1000 + i }, skills: [`s${i}`] }) })).body);
    const foreign = (await other.call(otherAdmin, 'POST', VEHICLES, { body: newVehicle() })).body;
    const unknown = Array.from({ length: 150 }, () => randomUUID());
    const found = await runAs(OPERATOR, () => findVehicles(tenant.id, [...unknown.slice(0, 120), mine[0].id, foreign.id, ...unknown.slice(120), mine[2].id, mine[1].id, mine[0].id]));
    expect([...found.keys()].sort()).toEqual(mine.map((v) => v.id).sort());
    for (const vehicle of mine) expect(found.get(vehicle.id)).toEqual(vehicle);
    expect((await runAs(OPERATOR, () => findVehicles(tenant.id, []))).size).toBe(0);
  });
});
