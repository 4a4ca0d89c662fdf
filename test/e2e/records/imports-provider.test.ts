import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importWorker } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { runImportPage } from '../../../functions/records/imports/run-page.ts';
import { importQueue, setImportQueue, type ImportMessage } from '../../../shared/ports/import-queue.ts';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { eventually } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { allRecords, runImport, startImport, waitForImport } from './support.ts';

// A failed message comes back after 10 s instead of a minute, so a "crash" resumes within the
// test. Not after 1 s (issue 37): a page that took longer on a loaded machine was received again
// while its first delivery still ran, and five overlapping deliveries failed the import.
const stack = useLocalStack({ env: { IMPORT_VISIBILITY_TIMEOUT_SECONDS: '10' } });
const BIG = { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' };
const SMALL = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };
const OTHER = { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' };

/** 130 variants with stock in three offices: more than 100 records on our side, three provider pages of 50. */
const bigCatalogue = {
  variants: Array.from({ length: 130 }, (_, i) => ({ id: i + 1, description: `Variante ${i + 1}`, code: `SKU-${i + 1}`, barCode: '', state: 0, product: { id: 100 + i } })),
  stocks: Array.from({ length: 130 }, (_, i) => [1, 2, 3].map((office) => ({ quantity: i, quantityReserved: 0, quantityAvailable: i, variant: { id: i + 1 }, office: { id: office } }))).flat(),
  clients: Array.from({ length: 3 }, (_, i) => ({ id: 500 + i, firstName: 'Rosa', lastName: `Díaz ${i}`, company: '', code: '', email: '', phone: '', state: 0, contacts: Array.from({ length: 60 }, (_, c) => ({ id: 9000 + i * 100 + c, firstName: 'C', lastName: String(c), email: '', phone: '' })) })),
};
const TOTAL = 130 + 390 + 3;

let fake: ProviderFake;
beforeAll(async () => {
  fake = await startProviderFake();
  fake.addCompany(BIG, bigCatalogue);
  fake.addCompany(SMALL);
  fake.addCompany(OTHER);
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});
beforeEach(() => fake.faults.clear());

describe('imports through the real adapter and the provider fake', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let bigConnection: { id: string };
  const connect = async (clientCode: string) => {
    const authorization = await tenant.call(admin, 'POST', '/v1/integrations/provider/authorizations', { body: { clientCode, name: 'Catálogo' } });
    const connection = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code: await fake.approve(clientCode), bindingSecret: authorization.body.bindingSecret } });
    expect(connection.status, connection.text).toBe(201);
    return connection.body as { id: string };
  };
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
  });

  it('pages both sides (>100 records, provider pages of 50, 60 contacts a party) within the provider’s rate', async () => {
    const connection = (bigConnection = await connect(BIG.clientCode));
    const done = await runImport(tenant, admin, connection.id);
    expect(done).toMatchObject({ state: 'succeeded', counts: { seen: TOTAL, created: TOTAL, updated: 0, unchanged: 0, conflicts: 0 } });
    const variants = await allRecords(tenant, admin, connection.id, 'variants');
    expect(variants.items).toHaveLength(130);
    expect(variants.pages).toBe(2);
    expect(variants.items.every((r) => r.origin === 'provider-chile-v1' && r.versionKind === 'local_observation')).toBe(true);
    expect((await allRecords(tenant, admin, connection.id, 'stock-levels')).items).toHaveLength(390);
    const parties = (await allRecords(tenant, admin, connection.id, 'parties')).items;
    expect(parties.map((p) => p.contacts.length)).toEqual([60, 60, 60]);
    // The fake refuses over 10 requests a second; the import never met its 429.
    expect(fake.requests.filter((r) => r.status === 429)).toEqual([]);
    // The audit log: the admin's start, then one system entry per committed page (3 + 8 + 1 pages of at most 50).
    const entries = (await tenant.call(admin, 'GET', `/v1/audit?resourceId=${done.id}&limit=100`)).body.items as { action: string; actorId: string }[];
    expect(entries.filter((e) => e.action === 'startImport').map((e) => e.actorId)).toEqual([admin.id]);
    const pages = entries.filter((e) => e.action === 'importProviderPage');
    expect(pages).toHaveLength(12);
    expect(pages.every((e) => e.actorId === SYSTEM_ACTOR_ID)).toBe(true);

    // A changed record at the provider shows up after a re-import with its observationVersion raised.
    fake.catalogue(BIG.clientCode).variants[0]!.description = 'Nueva descripción';
    const again = await runImport(tenant, admin, connection.id, { streams: ['variants'] });
    expect(again.counts).toEqual({ seen: 130, created: 0, updated: 1, unchanged: 129, conflicts: 0 });
    const changed = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/variants?externalId=1`);
    expect(changed.body.items[0]).toMatchObject({ name: 'Nueva descripción', observationVersion: 2, causationId: again.id });
  }, 120_000);

  it('waits out a storm of 429s and goes on', async () => {
    const connection = await connect(SMALL.clientCode);
    fake.faults.add({ route: 'GET /v1/stocks.json', kind: 'status', status: 429, times: 3 });
    const done = await runImport(tenant, admin, connection.id, { streams: ['variants', 'stock_levels'] });
    expect(done.state).toBe('succeeded');
    expect(done.counts).toMatchObject({ seen: 60 + 180, created: 60 + 180 });
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/stocks.json') && r.status === 429).length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('resumes after a worker dies between pages, and a repeated message applies nothing twice', async () => {
    const connection = await connect(OTHER.clientCode);
    const real = importQueue();
    let sends = 0;
    const dying = {
      send: async (message: ImportMessage, delay?: number) => {
        // The worker dies after committing its second and fourth pages, before sending the next message.
        if (++sends === 3 || sends === 6) throw new Error('worker killed');
        return real.send(message, delay);
      },
    };
    setImportQueue(dying);
    try {
      const started = await startImport(tenant, admin, connection.id);
      const done = await waitForImport(tenant, admin, connection.id, started.id);
      const total = 60 + 180 + 30;
      expect(done).toMatchObject({ state: 'succeeded', counts: { seen: total, created: total, updated: 0, unchanged: 0, conflicts: 0 } });
      expect(sends).toBeGreaterThan(6);
      // Every message again, as SQS may deliver any of them twice: nothing changes.
      for (let step = 0; step < 10; step++) {
        const outcome = await runAs(importWorker.name, () => runImportPage({ tenantId: tenant.id, connectionId: connection.id, importId: started.id, step }));
        expect(outcome).toBe('redelivery');
      }
      const read = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports/${started.id}`);
      expect(read.body).toEqual(done);
      expect((await allRecords(tenant, admin, connection.id, 'stock-levels')).items).toHaveLength(180);
    } finally {
      setImportQueue(real);
    }
  }, 120_000);

  it('applies a stock change that arrives by notice, without an import; ignores unknown companies and malformed notices', async () => {
    // The connection the first test imported.
    const connection = bigConnection;
    const notify = (body: unknown) => fetch(`${stack().baseUrl}/v1/integrations/provider/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const stockOf = async (externalId: string) => (await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/stock-levels?externalId=${externalId}`)).body.items[0];
    const before = await stockOf('5:2');
    expect(before.observationVersion).toBe(1);
    const imports = (await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports`)).body.items.length;

    const item = fake.catalogue(BIG.clientCode).stocks.find((s) => Number(s.variant.id) === 5 && Number(s.office.id) === 2)!;
    item.quantity = 777;
    item.quantityAvailable = 777;
    const answer = await notify({ cpnId: BIG.clientCode, resource: '/v2/stocks.json?variant=5&office=2', resourceId: '5', topic: 'stock', action: 'put', send: 1_700_000_000 });
    expect(answer.status).toBe(202);
    // Read again in the import worker, shortly after the answer.
    const after = await eventually(() => stockOf('5:2'), (s) => s.observationVersion === 2);
    expect(after).toMatchObject({ quantityPhysical: '777', quantityAvailable: '777', observationVersion: 2 });
    expect(after.causationId).not.toBe(before.causationId);
    // The change is in the audit log: one entry, acted by the system (the provider is no member), naming the connection.
    const entries = (await tenant.call(admin, 'GET', `/v1/audit?action=receiveProviderNotice`)).body.items;
    expect(entries).toEqual([
      expect.objectContaining({ actorId: SYSTEM_ACTOR_ID, resourceId: connection.id, outcome: 'succeeded', requestId: answer.headers.get('x-request-id') }),
    ]);
    expect(await stockOf('5:1')).toMatchObject({ observationVersion: 1 });
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports`)).body.items).toHaveLength(imports);

    fake.catalogue(BIG.clientCode).variants[1]!.state = 1;
    expect((await notify({ cpnId: BIG.clientCode, resource: '/v2/variants/2.json', resourceId: '2', topic: 'variant', action: 'put' })).status).toBe(202);
    const variantTwo = () => tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/variants?externalId=2`).then((r) => r.body.items[0]);
    expect(await eventually(variantTwo, (v) => v.active === false)).toMatchObject({ active: false });

    // Only notices read one variant or one variant's stock (imports page through whole lists).
    const noticeReads = () => fake.requests.filter((r) => r.path.includes('variantid=') || /^\/v1\/variants\/\d+\.json/.test(r.path)).length;
    const requests = noticeReads();
    for (const body of [{ cpnId: '11111111-1', topic: 'stock', resourceId: '5' }, { hello: 'world' }, [], 'text', { cpnId: BIG.clientCode, topic: 'stock', resourceId: '../x' }]) {
      expect((await notify(body)).status).toBe(202);
    }
    expect(noticeReads()).toBe(requests); // nothing was fetched for them
    expect((await stockOf('5:2')).observationVersion).toBe(2);

    // Rate limited per client address: over the minute's limit the answer is 429 with Retry-After.
    process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE = '1';
    try {
      await notify({ hello: 'again' });
      const limited = await notify({ hello: 'again' });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      delete process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE;
    }
  }, 240_000);
});
