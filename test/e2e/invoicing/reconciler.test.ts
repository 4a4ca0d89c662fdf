import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntent } from '../../../functions/invoicing/create.ts';
import { getIntent, insertIntent, type IntentRecord } from '../../../functions/invoicing/intent-record.ts';
import { issueIntent } from '../../../functions/invoicing/issue.ts';
import { runReconciler, type RunOptions } from '../../../functions/invoicing/reconciler/run.ts';
import { CreateIntentBody } from '../../../functions/invoicing/schemas.ts';
import { moveIntent } from '../../../functions/invoicing/transitions.ts';
import { invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys, RECONCILE_SHARDS, shardOf } from '../../../shared/table/keys.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { startFakeProviderEnv } from '../../support/provider-env.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { connectFake } from './provider-fake.ts';
import { registerFakeProviderChile } from './world.ts';
import { invoiceBody, PREFIX } from './support.ts';

// The tests run the reconciler themselves: the stack's one-minute timer would share the work and its counts.
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR', INVOICE_RECONCILE_SECONDS: '3600' } });
const MINUTE = 60_000;

/** The ids on the due index (every partition: the connections' and the legacy shards), as the reconciler would find them by `until`. */
const dueIds = async (until: Date): Promise<Set<string>> => {
  const ids = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new ScanCommand({
        TableName: tableName(),
        IndexName: 'gsi2',
        FilterExpression: 'begins_with(gsi2pk, :prefix) AND gsi2sk <= :until',
        ExpressionAttributeValues: { ':prefix': 'INVDUE#', ':until': `${until.toISOString()}#~` },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) ids.add(item.id as string);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return ids;
};

/** An intent as the index before this one held it: due on a shared shard by its id (`INVDUE#{0..31}`). */
const insertLegacy = (record: IntentRecord) => {
  const write = insertIntent(record);
  write.item.Put!.Item = { ...write.item.Put!.Item, gsi2pk: keys.invoiceReconcilePartition(shardOf(record.id, RECONCILE_SHARDS)) };
  return write;
};

/** The scheduled reconciler as its own Lambda runs it (the IAM check holds its calls against that role). */
const reconcilerRun = (at: Date, options: RunOptions = {}) => runAs(invoiceReconciler.name, () => runReconciler(at, options));

describe('the scheduled reconciler does not stall', () => {
  let fake: ProviderFake;
  let unregister: (() => void) | undefined;
  let tenant: TestTenant;
  let other: TestTenant;
  let admin: TestMember;
  let otherAdmin: TestMember;

  beforeAll(async () => {
    fake = await startFakeProviderEnv();
    // The adapter's own deadline (raised for tests): a 300 ms one failed calls that were only slow
    // on a loaded machine. The hanging provider below drops each call after 300 ms instead, as a
    // deadline would end it; the rules are the same at 8 s.
    unregister = registerFakeProviderChile(fake);
    [tenant, other] = await Promise.all([TestTenant.create(stack()), TestTenant.create(stack())]);
    [admin, otherAdmin] = await Promise.all([tenant.member('admin'), other.member('admin')]);
  }, 240_000);
  afterAll(async () => {
    unregister?.();
    await fake?.stop();
  });

  /** An intent issued through the domain functions, the provider answering `informedSii`. */
  const issued = async (on: TestTenant, by: TestMember, ready: Awaited<ReturnType<typeof connectFake>>, clientCode: string, informedSii: 0 | 1) => {
    const now = new Date();
    const created = await createIntent(on.id, v.parse(CreateIntentBody, invoiceBody(ready.connectionId, ready.customerId)), now);
    await commit(created.writes);
    for (const [move, version] of [['review', 1], ['approve', 2]] as const) await commit((await moveIntent(on.id, created.record.id, move, version, now)).writes);
    fake.setInformedSii(clientCode, informedSii);
    const outcome = await issueIntent(on.id, created.record.id, now, { actorId: by.id, requestId: randomUUID() });
    await commit(outcome.writes);
    fake.setInformedSii(clientCode, 0);
    return outcome.record;
  };

  it('moves the next look of an intent whose look learns nothing 2, 4, 8 … minutes later, at most an hour, persisted across runs', async () => {
    const ready = await connectFake(fake, other, otherAdmin, { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' });
    const recorded = await issued(other, otherAdmin, ready, RUT.b, 1);
    expect(recorded.localState).toBe('provider_recorded');
    // The provider answers 404 for the document (a lookup that finds nothing).
    fake.faults.add({ route: 'GET /v1/documents/{id}.json', kind: 'status', status: 404, times: 1_000 });
    const waits: number[] = [];
    let intent = await getIntent(other.id, recorded.id);
    // A run out of time starts nothing: the intent stays due as it was.
    expect(await reconcilerRun(new Date(Date.parse(intent.reconcileDueAt!)), { budgetMs: 0 })).toMatchObject({ looked: 0, moved: 0 });
    expect(await getIntent(other.id, recorded.id)).toEqual(intent);
    for (let run = 0; run < 8; run++) {
      const at = new Date(Date.parse(intent.reconcileDueAt!));
      await reconcilerRun(at);
      intent = await getIntent(other.id, recorded.id);
      waits.push((Date.parse(intent.reconcileDueAt!) - at.getTime()) / MINUTE);
    }
    expect(waits).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    expect(intent).toMatchObject({ localState: 'provider_recorded', taxState: 'pending', version: recorded.version });
    fake.faults.clear();
  }, 120_000);

  it('settles another tenant’s intent beside 500 intents of a hanging provider and 500 of a revoked connection left on the old shards, and drains those', async () => {
    const hanging = await connectFake(fake, tenant, admin, { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' });
    const revoked = await connectFake(fake, tenant, admin, { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' });
    // The other tenant's intent: recorded at the provider with the tax answer pending, due in a minute.
    const otherReady = await connectFake(fake, other, otherAdmin, { clientCode: '76123456-0', clientName: 'Comercial Demo SpA' });
    const waiting = await issued(other, otherAdmin, otherReady, '76123456-0', 1);
    expect(waiting.localState).toBe('provider_recorded');
    // The tax authority has answered since: the next look settles it.
    fake.documents(otherReady.token).find((d) => d.salesId === waiting.correlationId)!.informedSii = 0;

    // 1,000 intents left unknown an hour ago on the shared shards of before, seeded with the intents' own item builder.
    const template = (await createIntent(tenant.id, v.parse(CreateIntentBody, invoiceBody(hanging.connectionId, hanging.customerId)), new Date())).record;
    const hourAgo = Date.now() - 60 * MINUTE;
    const seeded = (connectionId: string, i: number): IntentRecord => ({
      ...template,
      id: newId(),
      connectionId,
      correlationId: randomUUID(),
      localState: 'unknown',
      providerState: 'unknown',
      taxState: 'unknown',
      version: 5,
      submission: { documentTypeId: '1', officeId: '1', emissionDate: Math.floor(hourAgo / 86_400_000) * 86_400, firstSubmittedAt: new Date(hourAgo).toISOString(), submittedAt: new Date(hourAgo).toISOString() },
      reconcileDueAt: new Date(hourAgo + i).toISOString(),
      reconcileAttempts: 0,
    });
    const records = Array.from({ length: 500 }, (_, i) => [seeded(hanging.connectionId, i), seeded(revoked.connectionId, i)]).flat();
    for (let i = 0; i < records.length; i += 25) await Promise.all(records.slice(i, i + 25).map((record) => commit([insertLegacy(record)])));
    const connection = await tenant.call(admin, 'GET', `/v1/integrations/connections/${revoked.connectionId}`);
    expect((await tenant.call(admin, 'POST', `/v1/integrations/connections/${revoked.connectionId}/revoke`, { body: { version: connection.body.version } })).status).toBe(200);
    // The hanging connection's company answers no lookup (every list of documents hangs).
    fake.faults.add({ route: 'GET /v1/documents.json', kind: 'hang', delayMs: 300, times: 100_000 });
    const lookupsBefore = fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/documents.json')).length;

    const at = new Date(Date.now() + 5 * MINUTE);
    expect((await dueIds(at)).size).toBeGreaterThanOrEqual(1_001);
    // The run's 40 s budget is wall-clock time: on a loaded test machine seeding and holding off
    // 1,000 intents outlasted it and a green run failed. What the budget does is held above
    // (budgetMs 0 starts nothing); here the run may take what the machine needs, and "does not
    // stall" is held by what it did: the other tenant settled, the hanging provider asked <= 8 times.
    const run = await reconcilerRun(at, { budgetMs: 240_000 });
    // The old shards are drained: the revoked connection's intents off the index, the others moved to their connection's partition.
    expect(run).toMatchObject({ held: 500, migrated: 500 });
    // The next run looks at the hanging connection's share from there (this one may too: the moved entries are due).
    await reconcilerRun(at, { budgetMs: 240_000 });
    fake.faults.clear();

    expect(await getIntent(other.id, waiting.id)).toMatchObject({ localState: 'issued', taxState: 'authorized' });
    // The revoked connection's intents left the due index; they stay readable, and reconcile says why.
    const due = await dueIds(new Date(at.getTime() + 24 * 60 * MINUTE));
    const revokedIds = records.filter((r) => r.connectionId === revoked.connectionId).map((r) => r.id);
    expect(revokedIds.filter((id) => due.has(id))).toEqual([]);
    const one = await tenant.call(admin, 'GET', `${PREFIX}/${revokedIds[0]}`);
    expect(one.body).toMatchObject({ localState: 'unknown', version: 5 });
    const refused = await tenant.call(admin, 'POST', `${PREFIX}/${revokedIds[0]}/reconcile`);
    expect([refused.status, refused.body.code]).toEqual([409, 'connection_revoked']);
    // The hanging provider was asked a few times, not 500; what was looked at or held back waits longer now.
    const lookups = fake.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/documents.json')).length - lookupsBefore;
    // At most `concurrency` (8) a run, over the two runs (the first may already read what it moved).
    expect(lookups).toBeLessThanOrEqual(16);
    const hangingIds = records.filter((r) => r.connectionId === hanging.connectionId).map((r) => r.id);
    const later = await Promise.all(hangingIds.slice(0, 20).map((id) => getIntent(tenant.id, id)));
    for (const intent of later) expect(Date.parse(intent.reconcileDueAt!)).toBeGreaterThan(at.getTime());
    // The next run starts where the index now stands: the held-back intents are not at its head any more.
    expect([...(await dueIds(at))].filter((id) => hangingIds.includes(id)).length).toBeLessThan(500);
  }, 300_000);
});
