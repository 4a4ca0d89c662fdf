import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { connectionWithRecords, goodsData, goodsOrder, ORDERS } from './support.ts';

const stack = useLocalStack({ env: { SANDBOX_PROVIDER_DATA_DIR: goodsData.dir, IMPORT_PROVIDER_MIN_INTERVAL_MS: '0' } });

describe('orders with goods (decisions 14)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let ready: Awaited<ReturnType<typeof connectionWithRecords>>;
  let other: Awaited<ReturnType<typeof connectionWithRecords>>;
  const create = (body: unknown, idempotencyKey?: string) => tenant.call(operator, 'POST', ORDERS, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });
  const count = async () => (await tenant.call(admin, 'GET', `${ORDERS}?limit=100`)).body.items.length;
  const line = (over: Record<string, unknown> = {}) => ({ variantId: null, description: 'Harina 25 kg', quantity: 1, unitPriceMinor: '18990', ...over });

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
    ready = await connectionWithRecords(tenant, admin, RUT.a);
    other = await connectionWithRecords(tenant, admin, RUT.b);
  }, 120_000);

  it('stores and answers lines, customer, connection and the comuna and city; reads answer the same', async () => {
    const body = goodsOrder('GD-1', {
      connectionId: ready.connection.id,
      customerId: ready.parties.pepe,
      lines: [
        line({ variantId: ready.variants.flour, quantity: '2.500000' }),
        { description: 'Aceite 1 L (caja de 12)', quantity: 0.125, unitPriceMinor: null },
        line({ variantId: ready.variants.oil, quantity: '3', unitPriceMinor: '0' }),
      ],
    });
    const made = await create(body);
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      connectionId: ready.connection.id,
      customerId: ready.parties.pepe,
      address: { text: 'San Pablo 3456', latitude: -33.44, longitude: -70.68, municipality: 'Quinta Normal', city: 'Santiago' },
      lines: [
        { position: 1, variantId: ready.variants.flour, description: 'Harina 25 kg', quantity: '2.5', unitPriceMinor: '18990' },
        { position: 2, variantId: null, description: 'Aceite 1 L (caja de 12)', quantity: '0.125', unitPriceMinor: null },
        { position: 3, variantId: ready.variants.oil, description: 'Harina 25 kg', quantity: '3', unitPriceMinor: '0' },
      ],
    });
    // The provider ids stay inside: the API answers neither the customer's nor the variants'.
    expect(made.body).not.toHaveProperty('customerExternalId');
    expect(Object.keys(made.body.lines[0]).sort()).toEqual(['description', 'position', 'quantity', 'unitPriceMinor', 'variantId']);
    const read = await tenant.call(admin, 'GET', `${ORDERS}/${made.body.id}`);
    expect(read.body).toEqual(made.body);
    const listed = (await tenant.call(admin, 'GET', `${ORDERS}?limit=100`)).body.items.find((o: { id: string }) => o.id === made.body.id);
    expect(listed).toEqual(made.body);
    // As stored (contract 3): the provider ids resolved at create, for the guide.
    const { Item } = await runAs(OPERATOR, () => table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.order(tenant.id, made.body.id) })));
    expect(Item).toMatchObject({ customerExternalId: '501', connectionId: ready.connection.id });
    expect(Item!.lines.map((l: { variantExternalId: string | null }) => l.variantExternalId)).toEqual(['11', null, '12']);
  });

  it('takes 0 and 60 lines (a guide’s most), refuses 61 with 422 naming body.lines; an order without goods behaves as before, with nulls', async () => {
    const plain = await create(goodsOrder('GD-0', { address: { text: 'Sin comuna 1', latitude: -33.4, longitude: -70.6 } }));
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body).toMatchObject({ lines: [], customerId: null, connectionId: null, address: { text: 'Sin comuna 1', latitude: -33.4, longitude: -70.6, municipality: null, city: null } });
    expect((await create(goodsOrder('GD-00', { lines: [] }))).body.lines).toEqual([]);
    const sixty = await create(goodsOrder('GD-60', { connectionId: ready.connection.id, lines: Array.from({ length: 60 }, (_, i) => line({ description: `Caja ${i + 1}` })) }));
    expect(sixty.status, sixty.text).toBe(201);
    expect(sixty.body.lines.map((l: { position: number }) => l.position)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const before = await count();
    const over = await create(goodsOrder('GD-61', { connectionId: ready.connection.id, lines: Array.from({ length: 61 }, () => line()) }));
    expect([over.status, over.body.code, over.body.errors.map((e: { path: string }) => e.path)]).toEqual([422, 'invalid_order', ['body.lines']]);
    expect(await count()).toBe(before);
  });

  it('refuses malformed goods with 400 naming the field (101 lines, quantities, prices, texts), writing nothing', async () => {
    const before = await count();
    const withLines = (lines: unknown, over: Record<string, unknown> = {}) => goodsOrder('GD-BAD', { connectionId: ready.connection.id, lines, ...over });
    const cases: Array<[unknown, string]> = [
      [withLines(Array.from({ length: 101 }, () => line())), 'body.lines'],
      [withLines([line({ quantity: '1.0000001' })]), 'body.lines.0.quantity'],
      [withLines([line({ quantity: 0 })]), 'body.lines.0.quantity'],
      [withLines([line({ quantity: '0.000000' })]), 'body.lines.0.quantity'],
      [withLines([line({ quantity: -1 })]), 'body.lines.0.quantity'],
      [withLines([line({ quantity: '1e3' })]), 'body.lines.0.quantity'],
      [withLines([line({ quantity: true })]), 'body.lines.0.quantity'],
      [withLines([line(), line({ unitPriceMinor: '12.5' })]), 'body.lines.1.unitPriceMinor'],
      [withLines([line({ unitPriceMinor: 1000 })]), 'body.lines.0.unitPriceMinor'],
      [withLines([line({ unitPriceMinor: '-1' })]), 'body.lines.0.unitPriceMinor'],
      [withLines([line({ description: '' })]), 'body.lines.0.description'],
      [withLines([line({ description: 'x'.repeat(201) })]), 'body.lines.0.description'],
      [withLines([line({ variantId: 'not-a-uuid' })]), 'body.lines.0.variantId'],
      [withLines([{ ...line(), sku: 'A-1' }]), 'body.lines.0.sku'],
      [withLines([{ description: 'x', unitPriceMinor: null }]), 'body.lines.0.quantity'],
      [withLines('many'), 'body.lines'],
      [goodsOrder('GD-BAD', { connectionId: 'nope' }), 'body.connectionId'],
      [goodsOrder('GD-BAD', { customerId: 7 }), 'body.customerId'],
      [goodsOrder('GD-BAD', { address: { text: 'a', latitude: 0, longitude: 0, municipality: 'x'.repeat(61) } }), 'body.address.municipality'],
      [goodsOrder('GD-BAD', { address: { text: 'a', latitude: 0, longitude: 0, city: '' } }), 'body.address.city'],
    ];
    for (const [body, path] of cases) {
      const answer = await create(body);
      expect(answer.status, path).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect([answer.body.code, answer.body.errors.map((e: { path: string }) => e.path)], path).toEqual(['validation_failed', [path]]);
    }
    expect(await count()).toBe(before);
  });

  it('refuses goods that do not fit the connection and its records with 422 naming the field, writing nothing', async () => {
    const before = await count();
    const stranger = await TestTenant.create(stack());
    const strangerAdmin = await stranger.member('admin');
    const foreign = await connectionWithRecords(stranger, strangerAdmin, RUT.k);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ lines: [line()] }, 'invalid_order', 'body.connectionId'],
      [{ customerId: ready.parties.pepe }, 'invalid_order', 'body.connectionId'],
      [{ connectionId: ready.connection.id, lines: [line({ variantId: other.variants.flour })] }, 'invalid_order', 'body.lines.0.variantId'],
      [{ connectionId: ready.connection.id, customerId: other.parties.pepe }, 'invalid_order', 'body.customerId'],
      [{ connectionId: ready.connection.id, customerId: ready.variants.flour }, 'invalid_order', 'body.customerId'],
      [{ connectionId: ready.connection.id, lines: [line(), line({ variantId: ready.parties.pepe })] }, 'invalid_order', 'body.lines.1.variantId'],
      [{ connectionId: ready.connection.id, lines: [line({ variantId: crypto.randomUUID() })] }, 'invalid_order', 'body.lines.0.variantId'],
      // Another tenant's connection and records are unknown here.
      [{ connectionId: foreign.connection.id, lines: [line({ variantId: foreign.variants.flour })] }, 'connection_not_ready', 'body.connectionId'],
      [{ connectionId: crypto.randomUUID(), lines: [line()] }, 'connection_not_ready', 'body.connectionId'],
      [{ connectionId: ready.connection.id, lines: [line({ variantId: foreign.variants.flour })] }, 'invalid_order', 'body.lines.0.variantId'],
      [{ connectionId: ready.connection.id, customerId: foreign.parties.pepe }, 'invalid_order', 'body.customerId'],
      // What a guide could not carry exactly to the provider (a JSON number).
      [{ connectionId: ready.connection.id, lines: [line({ quantity: '123456789012.123456' })] }, 'invalid_order', 'body.lines.0.quantity'],
      [{ connectionId: ready.connection.id, lines: [line({ unitPriceMinor: '9007199254740992' })] }, 'invalid_order', 'body.lines.0.unitPriceMinor'],
      [{ connectionId: ready.connection.id, lines: [line({ quantity: 2, unitPriceMinor: '4503599627370496' })] }, 'invalid_order', 'body.lines.0.quantity'],
    ];
    for (const [over, code, path] of cases) {
      const answer = await create(goodsOrder('GD-NO', over));
      expect(answer.status, `${path} ${answer.text}`).toBe(422);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect([answer.body.code, answer.body.errors.map((e: { path: string }) => e.path)], path).toEqual([code, [path]]);
    }
    // Every problem at once.
    const many = await create(goodsOrder('GD-NO', { connectionId: ready.connection.id, customerId: other.parties.esquina, lines: [line({ variantId: other.variants.oil }), line(), line({ variantId: other.variants.flour })] }));
    expect(many.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.customerId', 'body.lines.0.variantId', 'body.lines.2.variantId']);
    expect(await count()).toBe(before);
    // The other tenant's own connection takes its own records.
    expect((await stranger.call(strangerAdmin, 'POST', ORDERS, { body: goodsOrder('GD-F', { connectionId: foreign.connection.id, lines: [line({ variantId: foreign.variants.flour })] }) })).status).toBe(201);
  }, 120_000);

  it('refuses a revoked connection as invoicing does (422 connection_not_ready); its orders stay readable', async () => {
    const revoked = await connectionWithRecords(tenant, admin, RUT.a);
    const kept = await create(goodsOrder('GD-R', { connectionId: revoked.connection.id, customerId: revoked.parties.esquina, lines: [line({ variantId: revoked.variants.oil })] }));
    expect(kept.status, kept.text).toBe(201);
    const revoke = await tenant.call(admin, 'POST', `/v1/integrations/connections/${revoked.connection.id}/revoke`, { body: { version: revoked.connection.version } });
    expect(revoke.status, revoke.text).toBe(200);
    const refused = await create(goodsOrder('GD-R2', { connectionId: revoked.connection.id, lines: [line()] }));
    expect([refused.status, refused.body.code, refused.body.errors[0].path]).toEqual([422, 'connection_not_ready', 'body.connectionId']);
    expect((await tenant.call(admin, 'GET', `${ORDERS}/${kept.body.id}`)).body).toEqual(kept.body);
  }, 120_000);

  it('replays an idempotent create with its goods, and refuses the key with other goods', async () => {
    const key = crypto.randomUUID();
    const body = goodsOrder('GD-IDEM', { connectionId: ready.connection.id, lines: [line({ quantity: '1.5' })] });
    const first = await create(body, key);
    const again = await create(body, key);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const changed = await create({ ...body, lines: [line({ quantity: '2' })] }, key);
    expect([changed.status, changed.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('reads an order stored before goods existed with lines [] and nulls', async () => {
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
            reference: 'OLD-1',
            recipient: { name: 'Rosa Díaz', phone: null, email: null },
            address: { text: 'Alameda 100', latitude: -33.44, longitude: -70.65 },
            serviceDate: '2026-11-20',
            state: 'pending',
            trackingToken: 'A'.repeat(32),
            version: 1,
            createdAt: at,
            updatedAt: at,
          },
        }),
      ),
    );
    const read = await tenant.call(admin, 'GET', `${ORDERS}/${id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({
      id,
      reference: 'OLD-1',
      address: { text: 'Alameda 100', latitude: -33.44, longitude: -70.65, municipality: null, city: null },
      lines: [],
      customerId: null,
      connectionId: null,
      routeId: null,
      cancelledAt: null,
    });
    const cancelled = await tenant.call(operator, 'POST', `${ORDERS}/${id}/cancel`, { body: { version: 1 } });
    expect([cancelled.status, cancelled.body.lines, cancelled.body.state]).toEqual([200, [], 'cancelled']);
  });
});
