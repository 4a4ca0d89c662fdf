import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntent } from '../../../functions/invoicing/create.ts';
import { getIntent, insertIntent, type IntentRecord } from '../../../functions/invoicing/intent-record.ts';
import { POSTPONE_AUDIT_ACTION, runReconciler, type RunOptions } from '../../../functions/invoicing/reconciler/run.ts';
import { CreateIntentBody } from '../../../functions/invoicing/schemas.ts';
import { invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { newId } from '../../../shared/ids.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { startFakeProviderEnv } from '../../support/provider-env.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { seedGuide } from './guides-seed.ts';
import { connectFake } from './provider-fake.ts';
import { registerFakeProviderChile } from './world.ts';
import { invoiceBody } from './support.ts';

// The tests run the reconciler themselves: the stack's one-minute timer would share the work and its counts.
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR', INVOICE_RECONCILE_SECONDS: '3600' } });
const MINUTE = 60_000;
const reconcilerRun = (at: Date, options: RunOptions = {}) => runAs(invoiceReconciler.name, () => runReconciler(at, options));

/**
 * An id whose last 16 bits put it on one shard of the index as it was (`INVDUE#{last 16 bits % 32}`),
 * so the big tenant's backlog and the small tenant's intents would meet on one partition there.
 */
const onShard5 = (): string => `${newId().slice(0, -4)}${(5 + 32 * Math.floor(Math.random() * 2000)).toString(16).padStart(4, '0')}`;

describe('each tenant gets a share of every reconciler run', () => {
  let fake: ProviderFake;
  let unregister: (() => void) | undefined;
  let big: TestTenant;
  let small: TestTenant;
  let guides: TestTenant;
  let bigAdmin: TestMember;
  let smallAdmin: TestMember;
  let guidesAdmin: TestMember;

  beforeAll(async () => {
    fake = await startFakeProviderEnv();
    unregister = registerFakeProviderChile(fake, 2_000);
    [big, small, guides] = await Promise.all([TestTenant.create(stack()), TestTenant.create(stack()), TestTenant.create(stack())]);
    [bigAdmin, smallAdmin, guidesAdmin] = await Promise.all([big.member('admin'), small.member('admin'), guides.member('admin')]);
  }, 240_000);
  afterAll(async () => {
    unregister?.();
    await fake?.stop();
  });

  /** Intents left `unknown` (no document at the provider: a look sends each back to approved), due from `dueFrom` on. */
  const seedUnknown = async (tenant: TestTenant, ready: Awaited<ReturnType<typeof connectFake>>, count: number, dueFrom: number): Promise<IntentRecord[]> => {
    const template = (await createIntent(tenant.id, v.parse(CreateIntentBody, invoiceBody(ready.connectionId, ready.customerId)), new Date())).record;
    const records = Array.from({ length: count }, (_, i): IntentRecord => ({
      ...template,
      id: onShard5(),
      correlationId: randomUUID(),
      localState: 'unknown',
      providerState: 'unknown',
      taxState: 'unknown',
      version: 5,
      submission: { documentTypeId: '1', officeId: '1', emissionDate: Math.floor(dueFrom / 86_400_000) * 86_400, firstSubmittedAt: new Date(dueFrom).toISOString(), submittedAt: new Date(dueFrom).toISOString() },
      reconcileDueAt: new Date(dueFrom + i).toISOString(),
      reconcileAttempts: 0,
    }));
    for (let i = 0; i < records.length; i += 25) await Promise.all(records.slice(i, i + 25).map((record) => commit([insertIntent(record)])));
    return records;
  };

  it('settles a small tenant’s intents in one run behind 1,050 older due intents of another tenant', async () => {
    const bigReady = await connectFake(fake, big, bigAdmin, { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' });
    const smallReady = await connectFake(fake, small, smallAdmin, { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' });
    const hourAgo = Date.now() - 60 * MINUTE;
    // More than a run read from one shard (1,000), all older than the small tenant's three.
    const backlog = await seedUnknown(big, bigReady, 1_050, hourAgo);
    const mine = await seedUnknown(small, smallReady, 3, hourAgo + 30 * MINUTE);

    const run = await reconcilerRun(new Date(), { budgetMs: 240_000 });

    for (const intent of mine) expect(await getIntent(small.id, intent.id)).toMatchObject({ localState: 'approved', providerState: 'not_sent', version: 6 });
    // The big tenant got its share (20), not the run: the rest of its backlog is still due as it was.
    const looked = await Promise.all(backlog.map((intent) => getIntent(big.id, intent.id)));
    expect(looked.filter((intent) => intent.localState === 'approved')).toHaveLength(20);
    expect(looked.slice(0, 20).every((intent) => intent.localState === 'approved')).toBe(true);
    expect(run).toMatchObject({ looked: 23, moved: 23, failed: 0 });
  }, 300_000);

  it('postpones the approved guides of a connection without guide settings as a group, tells the tenant once, and leaves them alone until then', async () => {
    // connectFake sets the invoice settings only: no dispatch guide type, no shipping types.
    const ready = await connectFake(fake, guides, guidesAdmin, { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' });
    const hourAgo = new Date(Date.now() - 60 * MINUTE).toISOString();
    const waiting = [];
    for (let i = 0; i < 30; i++) {
      waiting.push(
        await seedGuide(guides.id, ready.connectionId, ready.customerId, [{ conceptKey: 'caja', description: 'Caja', quantity: '1', unitPriceMinor: '1000', catalogItemId: null, variantExternalId: null }], {
          localState: 'approved',
          providerState: 'not_sent',
          taxState: 'not_submitted',
          externalDocumentId: null,
          documentNumber: null,
          submission: null,
          version: 1,
          reconcileDueAt: hourAgo,
          orderId: newId(),
          routeId: newId(),
          stopId: newId(),
        }),
      );
    }
    const shippingsBefore = fake.requests.filter((r) => r.path.startsWith('/v1/shippings')).length;
    const postponements = async () =>
      ((await guides.call(guidesAdmin, 'GET', `/v1/audit?action=${POSTPONE_AUDIT_ACTION}&limit=100`)).body.items as Array<{ resourceId: string; actorId: string }>);

    const now = new Date();
    const first = await reconcilerRun(now);
    for (const guide of waiting) {
      const stored = await getIntent(guides.id, guide.id);
      expect(stored).toMatchObject({ localState: 'approved', version: 1 });
      expect(Date.parse(stored.reconcileDueAt!)).toBeGreaterThanOrEqual(now.getTime() + 60 * MINUTE);
    }
    // (The first test's big tenant still has its backlog due: those runs look at its share, not at these guides.)
    expect(first.notReady).toBe(30);
    const entries = await postponements();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ resourceId: ready.connectionId, actorId: '00000000-0000-0000-0000-000000000000' });

    // The following runs of the hour do not meet them again.
    for (const minutes of [1, 2, 30]) expect((await reconcilerRun(new Date(now.getTime() + minutes * MINUTE))).notReady).toBe(0);
    for (const guide of waiting) expect(await getIntent(guides.id, guide.id)).toMatchObject({ localState: 'approved', version: 1, reconcileAttempts: 1 });
    expect(await postponements()).toHaveLength(1);
    expect(fake.requests.filter((r) => r.path.startsWith('/v1/shippings')).length).toBe(shippingsBefore);
  }, 120_000);
});
