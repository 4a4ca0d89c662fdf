import { beforeAll, describe, expect, it } from 'vitest';
import { createRouteGuides } from '../../../functions/field/dispatch-guides.ts';
import { cancelRoute } from '../../../functions/field/route-cancel.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { importWorker, invoiceReconciler } from '../../../functions/jobs.ts';
import { issueRouteGuides } from '../../../functions/invoicing/guides/issue-guides.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import type { Caller } from '../../../shared/http/operation.ts';
import { commit, ReadOutdatedError } from '../../../shared/table/transaction.ts';
import { eventually } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { PREFIX } from '../invoicing/support.ts';
import { created } from '../operations/support.ts';
import { approvedPlan, assignBody } from '../routes/support.ts';
import { guideRoute, guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from './support.ts';

/** decisions 16: an order has at most one live guide, whatever its routes; cancels take the guides nothing of which reached the provider. */
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

describe('one live guide per order', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;
  // This file runs the reconciler itself, with chosen clocks.
  const world = useGuideWorld(stack, { reconciler: 'manual' });
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  const goods = () => ({ connectionId: ready.connectionId, customerId: ready.customerId });
  const caller = (): Caller => ({ requestId: crypto.randomUUID(), tenantId: tenant.id, member: { id: admin.id, role: 'admin' } as Caller['member'], claims: {}, now: new Date(), publicBaseUrl: '' });
  const intent = async (id: string) => (await tenant.call(admin, 'GET', `${PREFIX}/${id}`)).body;
  const shippingsOf = async (intentId: string) => {
    const { correlationId } = await intent(intentId);
    return fake.shippings(ready.token).filter((s) => s.salesId === correlationId).length;
  };
  const reconcileLater = () => runAs(invoiceReconciler.name, () => runReconciler(new Date(Date.now() + 6 * 60_000), { inFlightMs: 0 }));
  /** Guides committed with no queue message: they stay approved until the reconciler or a cancel comes. */
  const unsentGuides = async (routeId: string) => {
    const made = await createRouteGuides(caller(), routeId, 'sale');
    await commit(made.writes);
    return made.items.map((i) => i.intentId);
  };
  const getRoute = async (id: string) => (await tenant.call(admin, 'GET', `/v1/field/routes/${id}`)).body;
  const cancelRouteByApi = async (id: string) => {
    const answer = await tenant.call(operator, 'POST', `/v1/field/routes/${id}/cancel`, { body: { version: (await getRoute(id)).version } });
    expect(answer.status, answer.text).toBe(200);
  };
  const replan = async (orderIds: string[]) => {
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds }]);
    return created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) }));
  };

  it('cancelling an order cancels its unsent guide, which the reconciler then skips; the other stop’s guide is issued', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods(), goods()]);
    const [first, second] = await unsentGuides(route.id);
    const order = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    expect(order.dispatchGuide).toEqual({ intentId: first, number: null, localState: 'approved', routeId: route.id, stopId: route.stops[0]!.id });
    const cancelled = await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: order.version } });
    expect([cancelled.status, cancelled.body.dispatchGuide?.localState]).toEqual([200, 'cancelled']);
    expect((await intent(first!)).localState).toBe('cancelled');
    expect((await getRoute(route.id)).stops[0].dispatchGuide.localState).toBe('cancelled');
    await reconcileLater();
    expect([(await intent(first!)).localState, (await intent(second!)).localState]).toEqual(['cancelled', 'issued']);
    expect([await shippingsOf(first!), await shippingsOf(second!)]).toEqual([0, 1]);
  });

  it('a cancelled route’s unsent guide is cancelled, and the re-planned order gets a new guide on its new route', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods()]);
    const [old] = await unsentGuides(route.id);
    await cancelRouteByApi(route.id);
    // The route's cancel cancels its stops' unsent guides right after its commit.
    expect((await eventually(() => intent(old!), (i) => i.localState === 'cancelled')).localState).toBe('cancelled');
    const next = await replan([orders[0].id]);
    const answer = await tenant.call(admin, 'POST', guidesPath(next.id), { body: { transfer: 'sale' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.items[0].intentId).not.toBe(old);
    await waitForGuides(tenant, admin, next.id, 1);
    await reconcileLater();
    expect([await shippingsOf(old!), await shippingsOf(answer.body.items[0].intentId)]).toEqual([0, 1]);
  });

  it('a re-planned order whose guide reached the provider gets none again: the new route’s stop shows that guide with its own plate', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods()]);
    const first = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    const issued = (await waitForGuides(tenant, admin, route.id, 1)).stops[0].dispatchGuide;
    await cancelRouteByApi(route.id);
    const next = await replan([orders[0].id]);
    const again = await tenant.call(admin, 'POST', guidesPath(next.id), { body: { transfer: 'sale' } });
    expect(again.status, again.text).toBe(202);
    expect(again.body.items).toEqual([{ stopId: next.stops[0].id, orderId: orders[0].id, intentId: first.body.items[0].intentId }]);
    expect((await getRoute(next.id)).stops[0].dispatchGuide).toEqual({ ...issued, plate: next.vehicle.plate });
    expect((await intent(issued.intentId)).localState).toBe('issued');
    expect(await shippingsOf(issued.intentId)).toBe(1);
    // Cancelled now, the order keeps showing the guide the provider holds.
    const order = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    const cancelled = await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: order.version } });
    expect(cancelled.status, cancelled.text).toBe(200);
    const shown = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${order.id}`)).body.dispatchGuide;
    expect(shown).toEqual({ intentId: issued.intentId, number: issued.number, localState: 'issued', routeId: route.id, stopId: route.stops[0]!.id });
    expect((await tenant.call(operator, 'GET', '/v1/distribution/orders?limit=100')).body.items.find((o: { id: string }) => o.id === order.id)?.dispatchGuide).toEqual(shown);
  });

  it('a route cancel whose write-back died: the reconciler cancels its unsent guides instead of issuing them', async () => {
    const { route } = await guideRoute(tenant, operator, driver, [goods(), goods()]);
    const guides = await unsentGuides(route.id);
    const { writes } = await cancelRoute(caller(), route.id, (await getRoute(route.id)).version);
    await commit(writes); // and never its afterCommit
    expect((await intent(guides[0]!)).localState).toBe('approved');
    await reconcileLater();
    for (const id of guides) {
      expect((await intent(id)).localState).toBe('cancelled');
      expect(await shippingsOf(id)).toBe(0);
    }
  });

  it('a guide sent back to approved (a 401 answered before anything applied) counts as never submitted: its route’s cancel cancels it, nothing is sent (decisions 19)', async () => {
    const { route } = await guideRoute(tenant, operator, driver, [goods()]);
    const [guide] = await unsentGuides(route.id);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'status', status: 401, times: 1 });
    await runAs(importWorker.name, () => issueRouteGuides({ kind: 'guides', tenantId: tenant.id, routeId: route.id }));
    expect([(await intent(guide!)).localState, (await intent(guide!)).providerState]).toEqual(['approved', 'not_sent']);
    await cancelRouteByApi(route.id);
    expect((await intent(guide!)).localState).toBe('cancelled');
    await reconcileLater();
    expect([(await intent(guide!)).localState, await shippingsOf(guide!)]).toEqual(['cancelled', 0]);
  });

  it('a guide whose order was cancelled while its send was unknown, then proven absent, is cancelled by the reconciler, never sent (decisions 19)', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods()]);
    const [guide] = await unsentGuides(route.id);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'status', status: 500, times: 1 }); // refused before applying, but the caller cannot know
    await runAs(importWorker.name, () => issueRouteGuides({ kind: 'guides', tenantId: tenant.id, routeId: route.id }));
    expect((await intent(guide!)).localState).toBe('unknown');
    const order = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    const cancelled = await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: order.version } });
    // The provider may hold it: the cancel leaves it, shown on the order.
    expect([cancelled.status, cancelled.body.dispatchGuide?.localState]).toEqual([200, 'unknown']);
    // Past the answer window the look-up proves it absent (back to approved), and the next run cancels it instead of sending it.
    for (const minutes of [20, 30]) await runAs(invoiceReconciler.name, () => runReconciler(new Date(Date.now() + minutes * 60_000), { inFlightMs: 0 }));
    expect([(await intent(guide!)).localState, await shippingsOf(guide!)]).toEqual(['cancelled', 0]);
  });

  it('a delivery past its time budget hands the rest of the route to a new message, which issues each remaining guide once', async () => {
    const { route } = await guideRoute(tenant, operator, driver, [goods(), goods(), goods()]);
    const guides = await unsentGuides(route.id);
    // A budget of 0 stands for a route longer than one worker's 90 s: one guide, then a new message.
    expect(await runAs(importWorker.name, () => issueRouteGuides({ kind: 'guides', tenantId: tenant.id, routeId: route.id }, { budgetMs: 0 }))).toBe('continued');
    expect((await intent(guides[0]!)).localState).toBe('issued');
    await waitForGuides(tenant, admin, route.id, 3);
    for (const id of guides) expect(await shippingsOf(id!)).toBe(1);
  });

  it('an order cancelled between the guide’s read and its write gets no guide', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods()]);
    const made = await createRouteGuides(caller(), route.id, 'sale');
    const order = (await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body;
    expect((await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: order.version } })).status).toBe(200);
    await expect(commit(made.writes)).rejects.toBeInstanceOf(ReadOutdatedError);
    expect((await getRoute(route.id)).stops[0].dispatchGuide).toBeNull();
    expect((await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } })).body.items).toEqual([]);
  });
});
