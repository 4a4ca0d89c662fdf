import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importSchedule, importWorker } from '../../../functions/jobs.ts';
import { listConflicts } from '../../../functions/records/conflict-store.ts';
import { runImportPage } from '../../../functions/records/imports/run-page.ts';
import { handler as hourly } from '../../../functions/records/imports/schedule-handler.ts';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { importQueue, setImportQueue, type ImportMessage, type ImportQueueMessage } from '../../../shared/ports/import-queue.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { resetTableClient } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { conflictedTransaction, DynamoDbFaultProxy } from '../../support/dynamodb-fault-proxy.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { useLocalStack } from '../../support/stack.ts';
import { connectSandbox, RUT } from '../integrations/support.ts';
import { connectProvider, runImport, startImport, stock, variant, waitForImport } from './support.ts';

const stack = useLocalStack();
const COMPANY = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };
const catalogue = {
  variants: [1, 2, 3].map((id) => variant(id)),
  stocks: [1, 2, 3].map((id) => stock(id, 1, 5)),
  clients: [{ id: 700, firstName: 'Rosa', lastName: 'Díaz', company: '', code: '', email: '', phone: '', state: 0, contacts: [] }],
};

let fake: ProviderFake;
beforeAll(async () => {
  fake = await startProviderFake();
  fake.addCompany(COMPANY, catalogue);
  // Every connection here shares the company's token, and the schedule's imports run side by side.
  fake.setRateLimit(null);
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});
beforeEach(() => fake.faults.clear());

let tenant: TestTenant;
let admin: TestMember;
beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin');
});

const conflictsOf = async (connectionId: string, query = '') => {
  const page = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connectionId}/conflicts?limit=100${query}`);
  expect(page.status, page.text).toBe(200);
  return page.body as { items: { externalId: string; kind: string }[]; nextCursor: string | null };
};

describe('a bad provider item never wedges an import', () => {
  // Each list's first answer carries them (a second one, should the first be the fake's own 429 and be read again).
  const badItems = () => {
    fake.faults.clear();
    fake.faults.add({ route: 'GET /v1/variants.json', kind: 'items', items: [null, { description: 'Sin id', code: 'X', state: 0 }], times: 2 });
    // The provider's stock lines carry their own id; the record (and its conflict) is still variant:office.
    fake.faults.add({ route: 'GET /v1/stocks.json', kind: 'items', items: [{ id: 4321, quantity: 'doce', quantityReserved: 0, quantityAvailable: 0, variant: { id: 9 }, office: { id: 1 } }], times: 2 });
    fake.faults.add({ route: 'GET /v1/clients.json', kind: 'items', items: [null], times: 2 });
    fake.faults.add({ route: 'GET /v1/clients/{id}/contacts.json', kind: 'items', items: [{ firstName: 'Contacto sin id' }], times: 2 });
  };

  it('records null items, items without an id and unparseable quantities as invalid_record, once, and goes on', async () => {
    const connection = await connectProvider(tenant, admin, fake, COMPANY.clientCode);
    badItems();
    const done = await runImport(tenant, admin, connection.id);
    // 3 variants, 3 stock lines and the party read well; the two variants, the stock line, the null client and the party with a bad contact did not.
    expect(done).toMatchObject({ state: 'succeeded', counts: { seen: 3 + 2 + 3 + 1 + 2, created: 6, conflicts: 5 } });
    const first = await conflictsOf(connection.id);
    expect(first.items.map((c) => [c.kind, c.externalId]).sort()).toEqual([
      ['invalid_record', '-'],
      ['invalid_record', '-'],
      ['invalid_record', '-'],
      ['invalid_record', '700'],
      ['invalid_record', '9:1'],
    ]);
    // The same bad content met by the next (hourly) import is the same conflict, not a new one.
    badItems();
    const again = await runImport(tenant, admin, connection.id);
    expect(again).toMatchObject({ state: 'succeeded', counts: { conflicts: 5 } });
    expect((await conflictsOf(connection.id)).items).toEqual(first.items);
  }, 120_000);

  it('fails the import on the last delivery of a page that keeps failing, and lets a new one start', async () => {
    const connection = await connectProvider(tenant, admin, fake, COMPANY.clientCode);
    const real = importQueue();
    const sent: ImportQueueMessage[] = [];
    setImportQueue({ send: async (message) => void sent.push(message) });
    let started: { id: string };
    try {
      started = await startImport(tenant, admin, connection.id, { streams: ['variants'] });
    } finally {
      setImportQueue(real);
    }
    const message = sent[0] as ImportMessage;
    const proxy = new DynamoDbFaultProxy(stack().dynamoEndpoint);
    const original = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = await proxy.start();
    resetTableClient();
    try {
      // The page's commit fails (a cancelled transaction): on an early delivery it comes back...
      proxy.faults.set('TransactWriteItems', conflictedTransaction(5, 0));
      await expect(runAs(importWorker.name, () => runImportPage(message, 1))).rejects.toThrow();
      // ...on the last it ends the import, its lock released.
      proxy.faults.set('TransactWriteItems', conflictedTransaction(5, 0));
      expect(await runAs(importWorker.name, () => runImportPage(message, 4))).toBe('failed');
    } finally {
      process.env.DYNAMODB_ENDPOINT = original;
      resetTableClient();
      await proxy.stop();
    }
    const read = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/imports/${started.id}`);
    expect(read.body).toMatchObject({ state: 'failed', error: { code: 'import_page_failed' } });
    expect((await runImport(tenant, admin, connection.id, { streams: ['variants'] })).state).toBe('succeeded');
  }, 120_000);
});

describe('conflicts are bounded', () => {
  it('expires conflicts after 90 days and reads at most 200 items for a filtered page, answering a cursor', async () => {
    const connection = await connectProvider(tenant, admin, fake, COMPANY.clientCode);
    const bad = Array.from({ length: 250 }, (_, i) => ({ quantity: 'x', quantityReserved: 0, quantityAvailable: 0, variant: { id: 5000 + i }, office: { id: 1 } }));
    // The provider's stock lines carry their own id; the record (and its conflict) is still variant:office.
    fake.faults.add({ route: 'GET /v1/stocks.json', kind: 'items', items: bad });
    expect((await runImport(tenant, admin, connection.id, { streams: ['stock_levels'] })).counts.conflicts).toBe(250);
    // A filter nothing matches: the first page stops after 200 conflicts read, with a cursor; the next ends.
    const first = await conflictsOf(connection.id, '&externalId=1:1');
    expect(first).toEqual({ items: [], nextCursor: expect.any(String) });
    expect(await conflictsOf(connection.id, `&externalId=1:1&after=${first.nextCursor}`)).toEqual({ items: [], nextCursor: null });
    expect((await conflictsOf(connection.id, '&externalId=5249:1')).items.length + (await conflictsOf(connection.id, `&externalId=5249:1&after=${first.nextCursor}`)).items.length).toBe(1);
    const in91Days = new Date(Date.now() + 91 * 86_400_000);
    expect((await listConflicts(tenant.id, connection.id, { limit: 100 }, new Date())).items).toHaveLength(100);
    expect((await listConflicts(tenant.id, connection.id, { limit: 100 }, in91Days)).items).toEqual([]);
  }, 120_000);
});

describe('the hourly schedule', () => {
  it('pages through active connections across runs, never importing sandbox ones', async () => {
    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin');
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await connectProvider(other, otherAdmin, fake, COMPANY.clientCode));
    const sandbox = (await connectSandbox(other, otherAdmin, RUT.k)).connection;
    const importsOf = async (id: string) => (await other.call(otherAdmin, 'GET', `/v1/integrations/connections/${id}/imports`)).body.items as { id: string }[];
    process.env.IMPORT_SCHEDULE_MAX_PER_RUN = '2';
    try {
      const active = (await other.call(otherAdmin, 'GET', '/v1/integrations/connections?limit=100')).body.items.length + 4; // and this file's earlier ones
      for (let run = 0; run < Math.ceil(active / 2) + 1; run++) {
        const tally = await runAs(importSchedule.name, () => hourly());
        expect(Object.values(tally).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2);
      }
    } finally {
      delete process.env.IMPORT_SCHEDULE_MAX_PER_RUN;
    }
    for (const connection of mine) {
      const imports = await importsOf(connection.id);
      expect(imports.length, connection.id).toBeGreaterThanOrEqual(1);
      for (const i of imports) await waitForImport(other, otherAdmin, connection.id, i.id);
    }
    expect(await importsOf(sandbox.id)).toEqual([]);
  }, 200_000);
});
