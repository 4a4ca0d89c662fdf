import { beforeAll, describe, expect, it } from 'vitest';
import { createRouteGuides } from '../../../functions/field/dispatch-guides.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import type { Caller } from '../../../shared/http/operation.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { useLocalStack } from '../../support/stack.ts';
import { guideRoute, guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from './support.ts';

/**
 * decisions 14's "a second guide for one stop must never exist": concurrent calls, routes past
 * one transaction's 100 items, a request that died between its chunks, a queue message lost. The
 * fake makes a shipping per POST whatever its salesId (decisions 16): what happens when a send is
 * lost is in test/e2e/invoicing/guides-once.test.ts.
 */
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

describe('one guide per stop, whatever races or fails', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;

  // The stack's own one-minute reconciler stays out of the way: this file runs it with chosen clocks.
  const world = useGuideWorld(stack, { reconciler: 'manual' });
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  const goods = () => ({ connectionId: ready.connectionId, customerId: ready.customerId });
  const shippingsBySalesId = () => {
    const counts = new Map<string | null, number>();
    for (const s of fake.shippings(ready.token)) counts.set(s.salesId, (counts.get(s.salesId) ?? 0) + 1);
    return counts;
  };
  /** POST the route's guides with one idempotency key, repeating a 503 as a client would (bounded). */
  const postRetryingUnavailable = async (routeId: string, idempotencyKey: string) => {
    for (let attempt = 1; ; attempt++) {
      const answer = await tenant.call(admin, 'POST', guidesPath(routeId), { body: { transfer: 'sale' }, idempotencyKey });
      if (answer.status !== 503 || attempt === 5) return answer;
      await new Promise((resolve) => setTimeout(resolve, Number(answer.headers.get('retry-after') ?? 1) * 1000));
    }
  };
  const caller = (): Caller => ({ requestId: crypto.randomUUID(), tenantId: tenant.id, member: { id: admin.id } as Caller['member'], claims: {}, now: new Date(), publicBaseUrl: '' });

  it('10 concurrent calls with different keys on a route of 45 stops (routing’s most) make one guide per stop, counted at the provider', async () => {
    fake.setRateLimit(10); // the provider's own limit: the worker's spacing stays under it
    try {
      const { route } = await guideRoute(tenant, operator, driver, Array.from({ length: 45 }, goods));
      // Each caller does what a client does with 503 dependency_unavailable (its table calls queued
      // behind the others' on a loaded machine): waits Retry-After and repeats with the same key.
      const answers = await Promise.all(Array.from({ length: 10 }, () => postRetryingUnavailable(route.id, crypto.randomUUID())));
      // A caller that kept losing the race answers 409 (concurrent_update, or idempotency_in_progress
      // while its own earlier attempt runs); none makes a second guide.
      for (const a of answers) expect([202, 409], a.text).toContain(a.status);
      const won = answers.filter((a) => a.status === 202);
      expect(won.length).toBeGreaterThan(0);
      for (const a of won) expect(a.body).toEqual(won[0]!.body);
      expect(new Set(won[0]!.body.items.map((i: { stopId: string }) => i.stopId)).size).toBe(45);
      const settled = await waitForGuides(tenant, admin, route.id, 45, ['issued']);
      const intentIds = new Set(settled.stops.map((s: { dispatchGuide: { intentId: string } }) => s.dispatchGuide.intentId));
      expect(intentIds).toEqual(new Set(won[0]!.body.items.map((i: { intentId: string }) => i.intentId)));
      const counts = shippingsBySalesId();
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const ours = fake.shippings(ready.token).filter((s) => s.recipient.startsWith('Recibe'));
      expect(ours).toHaveLength(45);
      expect(fake.requests.filter((r) => r.status === 429)).toEqual([]);
    } finally {
      fake.setRateLimit(null);
    }
  }, 180_000);

  it('in one transaction for a whole route; chunked past it, a request that died between chunks leaves guarded guides and a retry makes only the rest', async () => {
    const { route } = await guideRoute(tenant, operator, driver, Array.from({ length: 10 }, goods));
    // Small chunks stand for a route past one transaction: 3 + 3 commit on their own, the last 4 go with the request, which dies here.
    const died = await createRouteGuides(caller(), route.id, 'sale', { inRequestItems: 1 + 4 * 4, perChunkItems: 1 + 3 * 4 });
    expect(died.writes.length).toBe(1 + 4 * 4);
    const half = (await tenant.call(admin, 'GET', `/v1/field/routes/${route.id}`)).body.stops;
    const earlier = half.filter((s: { dispatchGuide: unknown }) => s.dispatchGuide).map((s: { dispatchGuide: { intentId: string } }) => s.dispatchGuide.intentId);
    expect(earlier).toHaveLength(6);
    const retry = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect(retry.status, retry.text).toBe(202);
    expect(retry.body.items).toHaveLength(10);
    expect(retry.body.items.slice(0, 6).map((i: { intentId: string }) => i.intentId)).toEqual(earlier);
    const settled = await waitForGuides(tenant, admin, route.id, 10, ['issued']);
    expect(new Set(settled.stops.map((s: { dispatchGuide: { intentId: string } }) => s.dispatchGuide.intentId)).size).toBe(10);
    expect([...shippingsBySalesId().values()].every((n) => n === 1)).toBe(true);
    // 24 stops fit the request's one transaction: 4 items each (intent, stop, order guard, order check), 99 with the route's check, idempotency and audit.
    const { route: full } = await guideRoute(tenant, operator, driver, Array.from({ length: 24 }, goods));
    expect((await createRouteGuides(caller(), full.id, 'sale')).writes).toHaveLength(97);
    expect((await tenant.call(admin, 'GET', `/v1/field/routes/${full.id}`)).body.stops.filter((s: { dispatchGuide: unknown }) => s.dispatchGuide)).toEqual([]);
  }, 120_000);

  it('guides whose queue message was lost are issued by the scheduled reconciler after five minutes', async () => {
    const { route } = await guideRoute(tenant, operator, driver, [goods(), goods()]);
    // Committed, but no message reaches the worker (the request died after its commit).
    const made = await createRouteGuides(caller(), route.id, { transfer: 'internal_transfer', destinationOfficeId: '2' });
    await commit(made.writes);
    const reconcile = (minutes: number) => runAs(invoiceReconciler.name, () => runReconciler(new Date(Date.now() + minutes * 60_000), { inFlightMs: 0 }));
    await reconcile(1);
    const early = (await tenant.call(admin, 'GET', `/v1/field/routes/${route.id}`)).body.stops;
    expect(early.map((s: { dispatchGuide: { localState: string } }) => s.dispatchGuide.localState)).toEqual(['approved', 'approved']);
    await reconcile(6);
    const settled = await waitForGuides(tenant, admin, route.id, 2, ['issued']);
    expect(settled.stops.map((s: { dispatchGuide: { number: string } }) => s.dispatchGuide.number)).toEqual([expect.any(String), expect.any(String)]);
    expect([...shippingsBySalesId().values()].every((n) => n === 1)).toBe(true);
  }, 240_000);
});
