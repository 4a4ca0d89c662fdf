import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRouteGuides } from '../../../functions/field/dispatch-guides.ts';
import { findStopGuide } from '../../../functions/invoicing/guides/guard.ts';
import { spacedProvider } from '../../../functions/invoicing/guides/spaced-provider.ts';
import { getIntent } from '../../../functions/invoicing/intent-record.ts';
import { issueIntent } from '../../../functions/invoicing/issue.ts';
import { reconcileById } from '../../../functions/invoicing/reconcile.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { importWorker, invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import type { Caller } from '../../../shared/http/operation.ts';
import { ProviderChile } from '../../../shared/ports/billing-provider/provider-chile.ts';
import { setBillingProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startFakeProviderEnv } from '../../support/provider-env.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { Fault, faultOf } from './provider-faults.ts';
import { useLocalStack } from '../../support/stack.ts';
import { guideConnection, guideRoute } from '../dispatch-guides/support.ts';
import { RUT } from '../integrations/support.ts';

/**
 * decisions 14's promise under faults, as fault-injection.test.ts does for invoices: per sequence a
 * route of one stop with goods, then random steps (make the route's guides, issue the stop's guide
 * as the worker does, reconcile it), each with a random provider fault and a random crash between
 * the answer and the commit (its writes dropped). Afterwards the scheduled reconciler runs (it
 * also issues an approved guide nobody took). Asserted: at most one shipping per salesId and one
 * shipping, hence one guide, per stop; the guide settled and agreeing with the provider.
 * GUIDE_FAULT_RUNS=1000 for the full run; npm test runs 25.
 */
const RUNS = Number(process.env.GUIDE_FAULT_RUNS ?? 25);
const DEADLINE_MS = 250;
process.env.IMPORT_PROVIDER_MIN_INTERVAL_MS = '0'; // the spacing's rule is not under test here; its turns are

const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

const Step = fc.record({
  action: fc.constantFrom('make', 'issue', 'issue', 'reconcile'),
  // For an issue: the shipping's POST, or the read of its guide document after it.
  target: fc.constantFrom('POST /v1/shippings.json', 'GET /v1/documents/{id}.json'),
  fault: Fault,
  crash: fc.boolean(),
});

describe('issuing dispatch guides under provider faults and crashes', () => {
  let fake: ProviderFake;
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let driver: TestMember;
  let ready: Awaited<ReturnType<typeof guideConnection>>;
  let provider: ProviderChile;

  beforeAll(async () => {
    fake = await startFakeProviderEnv();
    tenant = await TestTenant.create(stack());
    [admin, operator, driver] = await Promise.all([tenant.member('admin'), tenant.member('operator'), tenant.member('driver')]);
    ready = await guideConnection(fake, tenant, admin, { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' });
    provider = new ProviderChile({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, appId: fake.appId, userToken: async () => fake.userToken, timeoutMs: DEADLINE_MS });
    setBillingProvider('provider-chile-v1', provider);
    // This file runs the reconciler itself, with chosen clocks.
    stack().invoiceReconciler.stop();
  }, 60_000);
  afterAll(async () => {
    setBillingProvider('provider-chile-v1', undefined);
    await fake?.stop();
  });

  const caller = (): Caller => ({ requestId: crypto.randomUUID(), tenantId: tenant.id, member: { id: admin.id } as Caller['member'], claims: {}, now: new Date(), publicBaseUrl: '' });
  const actor = () => ({ actorId: admin.id, requestId: 'guide-fault-injection' });

  it('never makes a second guide for a stop, and settles every guide in agreement with the provider', async () => {
    const counts = { sequences: 0, steps: 0, crashes: 0, faults: 0, refused409: 0, unavailable503: 0, issued: 0, rejected: 0, secondShippingsPerSalesId: 0, secondGuidesPerStop: 0 };
    let sequence = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(Step, { minLength: 1, maxLength: 6 }), async (steps) => {
        counts.sequences++;
        const place = `seq-${++sequence}-${crypto.randomUUID().slice(0, 8)}`;
        const { route } = await guideRoute(tenant, operator, driver, [{ connectionId: ready.connectionId, customerId: ready.customerId, municipality: place }]);
        const stopId = route.stops[0]!.id;
        const make = async (crash: boolean) => {
          const made = await createRouteGuides(caller(), route.id, 'sale');
          if (!crash) await commit(made.writes);
        };
        for (const step of steps) {
          counts.steps++;
          fake.faults.clear();
          const fault = faultOf(step.fault, step.action === 'reconcile' ? 'GET /v1/documents.json' : step.target);
          if (fault && step.action !== 'make') {
            counts.faults++;
            fake.faults.add(fault);
          }
          if (step.crash) counts.crashes++;
          try {
            if (step.action === 'make') {
              await make(step.crash);
              continue;
            }
            const guard = await findStopGuide(tenant.id, route.id, stopId);
            if (!guard) continue;
            const outcome =
              step.action === 'issue'
                ? // As the worker issues it: its role, its spaced provider.
                  await runAs(importWorker.name, () => issueIntent(tenant.id, guard.intentId, new Date(), actor(), { provider: spacedProvider(provider, ready.connectionId), deadlineMs: DEADLINE_MS }))
                : await reconcileById(tenant.id, guard.intentId, new Date(), { inFlightMs: 0 });
            if (!step.crash) await commit(outcome.writes);
          } catch (error) {
            const status = (error as { status?: number }).status;
            if (status === 409) counts.refused409++;
            else if (status === 503) counts.unavailable503++;
            else throw error;
          }
        }
        fake.faults.clear();
        if (!(await findStopGuide(tenant.id, route.id, stopId))) await make(false);
        // The scheduled reconciler as the minutes pass (future clocks stand for waiting).
        let guard = (await findStopGuide(tenant.id, route.id, stopId))!;
        for (let hour = 1; hour <= 10 && !['issued', 'rejected'].includes(guard.localState); hour++) {
          await runAs(invoiceReconciler.name, () => runReconciler(new Date(Date.now() + hour * 3_600_000), { inFlightMs: 0 }));
          guard = (await findStopGuide(tenant.id, route.id, stopId))!;
        }
        const intent = await getIntent(tenant.id, guard.intentId);
        const forStop = fake.shippings(ready.token).filter((s) => s.municipality === place);
        const forSalesId = forStop.filter((s) => s.salesId === intent.correlationId);
        if (forSalesId.length > 1) counts.secondShippingsPerSalesId++;
        if (forStop.length > 1) counts.secondGuidesPerStop++;
        expect(forSalesId.length).toBeLessThanOrEqual(1);
        expect(forStop.length).toBeLessThanOrEqual(1);
        expect(['issued', 'rejected']).toContain(intent.localState);
        counts[intent.localState as 'issued' | 'rejected']++;
        // The stop shows what the intent is.
        expect([guard.localState, guard.number]).toEqual([intent.localState, intent.documentNumber ?? null]);
        if (intent.localState === 'issued') {
          expect(forSalesId).toHaveLength(1);
          expect(intent.externalDocumentId).toBe(String(forSalesId[0]!.guide.id));
          const guide = fake.documents(ready.token).find((d) => String(d.id) === intent.externalDocumentId)!;
          expect(String(guide.number)).toBe(intent.documentNumber);
        }
      }),
      { numRuns: RUNS },
    );
    console.log(`guide fault injection: ${JSON.stringify(counts)}`);
    expect(counts.secondShippingsPerSalesId + counts.secondGuidesPerStop).toBe(0);
    expect(counts.sequences).toBe(RUNS);
  }, 3_600_000);
});
