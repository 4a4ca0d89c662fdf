import { beforeAll, describe, expect, it } from 'vitest';
import { importSchedule } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { handler as hourly } from '../../../functions/records/imports/schedule-handler.ts';
import { VARIANT_COUNT, CLIENT_COUNT } from '../../../shared/ports/billing-provider/sandbox-data.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { connectSandbox, RUT } from '../integrations/support.ts';
import { allRecords, runImport, sandboxDataDir, startImport, stock, variant, waitForImport } from './support.ts';

const data = sandboxDataDir();
const stack = useLocalStack({ env: { SANDBOX_PROVIDER_DATA_DIR: data.dir, IMPORT_PROVIDER_MIN_INTERVAL_MS: '0' } });

describe('imports from the sandbox', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let viewer: TestMember;
  let driver: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator, viewer, driver] = await Promise.all([tenant.member('admin'), tenant.member('operator'), tenant.member('viewer'), tenant.member('driver')]);
  });

  it('imports the generated catalogue page by page, pages it through the API, and re-imports it unchanged', async () => {
    const { connection } = await connectSandbox(tenant, admin, RUT.a);
    const started = await startImport(tenant, operator, connection.id);
    expect(started).toMatchObject({ connectionId: connection.id, streams: ['variants', 'stock_levels', 'parties'], state: 'queued', error: null, finishedAt: null });
    expect(started.counts).toEqual({ seen: 0, created: 0, updated: 0, unchanged: 0, conflicts: 0 });
    const first = await waitForImport(tenant, viewer, connection.id, started.id, 150_000);
    const total = VARIANT_COUNT + VARIANT_COUNT * 3 + CLIENT_COUNT;
    expect(first).toMatchObject({ state: 'succeeded', counts: { seen: total, created: total, updated: 0, unchanged: 0, conflicts: 0 } });
    expect(first.finishedAt).toMatch(/Z$/);

    const variants = await allRecords(tenant, viewer, connection.id, 'variants');
    expect(variants.items).toHaveLength(VARIANT_COUNT);
    expect(variants.pages).toBe(Math.ceil(VARIANT_COUNT / 100));
    const ids = variants.items.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids); // ordered by id
    const one = variants.items[0];
    expect(Object.keys(one).sort()).toEqual(
      ['active', 'barCode', 'causationId', 'connectionId', 'externalId', 'externalVersion', 'id', 'importedAt', 'mappingVersion', 'name', 'observationVersion', 'origin', 'parentExternalId', 'sku', 'unit', 'versionKind'].sort(),
    );
    expect(one).toMatchObject({ connectionId: connection.id, causationId: started.id, observationVersion: 1, mappingVersion: 1, origin: 'sandbox-v1', versionKind: 'provider_monotonic', unit: null });
    const stocks = await allRecords(tenant, viewer, connection.id, 'stock-levels');
    expect(stocks.items).toHaveLength(VARIANT_COUNT * 3);
    expect(stocks.items[0].externalId).toBe(`${stocks.items[0].variantExternalId}:${stocks.items[0].officeExternalId}`);
    const parties = await allRecords(tenant, viewer, connection.id, 'parties', 7);
    expect(parties.items).toHaveLength(CLIENT_COUNT);
    expect(parties.items.some((p) => p.contacts.length === 2)).toBe(true);
    expect(parties.items.every((p) => p.versionKind === 'local_observation' && p.externalVersion === null)).toBe(true);

    const filtered = await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/variants?externalId=${one.externalId}`);
    expect(filtered.body).toEqual({ items: [one], nextCursor: null });
    expect((await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/variants?externalId=nope`)).body).toEqual({ items: [], nextCursor: null });

    const again = await runImport(tenant, admin, connection.id);
    expect(again.counts).toEqual({ seen: total, created: 0, updated: 0, unchanged: total, conflicts: 0 });
    // Unchanged means untouched: causationId and importedAt stay those of the first import.
    expect((await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/variants?externalId=${one.externalId}`)).body.items[0]).toEqual(one);

    const list = await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/imports?limit=1`);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([started.id]);
    const rest = await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/imports?after=${list.body.nextCursor}`);
    expect(rest.body).toEqual({ items: [again], nextCursor: null });
  }, 180_000);

  it('applies the version rule: changed, stale, reused, invalid, deleted and reactivated records', async () => {
    const base = {
      variants: [variant(1, { version: '5' }), variant(2), variant(3, { state: 0 })],
      stocks: [stock(1, 1, 10, { version: '5' }), stock(2, 1, 3)],
      clients: [{ id: 7, firstName: 'Rosa', lastName: 'Díaz', company: '', code: '76.086.428-5', email: '', phone: '', state: 0, contacts: [{ id: 70, firstName: 'Luis', lastName: 'Soto', email: 'l@example.cl', phone: '' }] }],
    };
    data.write(RUT.b, base);
    const { connection } = await connectSandbox(tenant, admin, RUT.b);
    const first = await runImport(tenant, admin, connection.id);
    expect(first.counts).toEqual({ seen: 6, created: 6, updated: 0, unchanged: 0, conflicts: 0 });
    const before = (await allRecords(tenant, viewer, connection.id, 'variants')).items;
    const byExternal = (items: any[], id: string) => items.find((r) => r.externalId === id);

    data.write(RUT.b, {
      ...base,
      variants: [
        variant(1, { version: '5', description: 'otra cosa' }), // same version, other content: version_reused
        variant(2, { description: 'renamed' }), // local observation, other content: replaced
        variant(3, { state: 1 }), // deleted at the provider: kept, inactive
        variant(4, { code: '' }), // no sku: invalid_record, nothing stored
      ],
      stocks: [stock(1, 1, 9, { version: '4' }), stock(2, 1, 1.1234567)], // stale_version; 7 decimals: invalid_record
    });
    const second = await runImport(tenant, admin, connection.id);
    expect(second.counts).toEqual({ seen: 7, created: 0, updated: 2, unchanged: 1, conflicts: 4 });
    const after = (await allRecords(tenant, viewer, connection.id, 'variants')).items;
    expect(byExternal(after, '1')).toEqual(byExternal(before, '1')); // a conflict never changes the record
    expect(byExternal(after, '2')).toMatchObject({ name: 'renamed', observationVersion: 2, causationId: second.id });
    expect(byExternal(after, '3')).toMatchObject({ active: false, observationVersion: 2 });
    expect(byExternal(after, '4')).toBeUndefined();

    const conflicts = (await allRecords(tenant, viewer, connection.id, 'conflicts')).items;
    const kinds = Object.fromEntries(conflicts.map((c) => [`${c.stream}:${c.externalId}`, c]));
    expect(kinds['variants:1']).toMatchObject({ kind: 'version_reused', currentVersion: '5', incomingVersion: '5', currentVersionKind: 'provider_monotonic', incomingVersionKind: 'provider_monotonic', causationId: second.id, origin: 'sandbox-v1' });
    expect(kinds['variants:1'].currentSha256).not.toBe(kinds['variants:1'].incomingSha256);
    expect(kinds['variants:4']).toMatchObject({ kind: 'invalid_record', currentVersion: null, currentVersionKind: null, currentSha256: null, incomingVersionKind: 'local_observation' });
    expect(kinds['stock_levels:1:1']).toMatchObject({ kind: 'stale_version', currentVersion: '5', incomingVersion: '4' });
    expect(kinds['stock_levels:2:1']).toMatchObject({ kind: 'invalid_record', currentSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const onlyOne = await tenant.call(viewer, 'GET', `/v1/integrations/connections/${connection.id}/conflicts?externalId=1:1`);
    expect(onlyOne.body.items.map((c: { kind: string }) => c.kind)).toEqual(['stale_version']);

    data.write(RUT.b, { ...base, variants: [variant(1, { version: '6', description: 'otra cosa' }), variant(2, { description: 'renamed' }), variant(3, { state: 0 })] });
    const third = await runImport(tenant, admin, connection.id, { streams: ['variants'] });
    expect(third.streams).toEqual(['variants']);
    expect(third.counts).toEqual({ seen: 3, created: 0, updated: 2, unchanged: 1, conflicts: 0 });
    const last = (await allRecords(tenant, viewer, connection.id, 'variants')).items;
    expect(byExternal(last, '1')).toMatchObject({ externalVersion: '6', name: 'otra cosa', observationVersion: 2 });
    expect(byExternal(last, '3')).toMatchObject({ active: true, observationVersion: 3 }); // reactivated
  });

  it('runs one import per connection at a time and keeps drivers out', async () => {
    data.write('11111111-1', { variants: [variant(1)] });
    const { connection } = await connectSandbox(tenant, admin, '11111111-1');
    const key = crypto.randomUUID();
    const first = (await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: {}, idempotencyKey: key })).body;
    // The same request again is a replay: the same import, and no second one queued behind it.
    const replay = await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: {}, idempotencyKey: key });
    expect([replay.status, replay.body.id]).toEqual([202, first.id]);
    const second = await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: {} });
    // The first may already be done on a fast machine; then the second simply starts.
    if (second.status === 409) expect(second.body.code).toBe('import_running');
    else expect(second.status).toBe(202);
    await waitForImport(tenant, admin, connection.id, first.id);
    const imports = (await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports`)).body.items;
    expect(imports.filter((i: { id: string }) => i.id === first.id)).toHaveLength(1);
    expect(imports.length).toBe(second.status === 202 ? 2 : 1);
    expect((await tenant.call(driver, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: {} })).status).toBe(403);
    expect((await tenant.call(driver, 'GET', `/v1/integrations/connections/${connection.id}/variants`)).status).toBe(403);
    expect((await tenant.call(viewer, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: {} })).status).toBe(403);
    const bad = await tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/imports`, { body: { streams: ['nope'] } });
    expect(bad.status).toBe(400);
  });

  it('never imports sandbox connections from the hourly schedule', async () => {
    data.write('22222222-2', { variants: [variant(1), variant(2)] });
    const { connection } = await connectSandbox(tenant, admin, '22222222-2');
    const before = (await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports`)).body.items;
    const tally = await runAs(importSchedule.name, () => hourly());
    // Every connection of this file is a sandbox one: each is seen, none imported.
    expect(tally).toMatchObject({ started: 0, resumed: 0, failed: 0 });
    expect(tally.sandbox).toBeGreaterThanOrEqual(3);
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports`)).body.items).toEqual(before);
  });
});
