import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteGuides } from '../../../functions/field/dispatch-guides.ts';
import { findStopGuide } from '../../../functions/invoicing/guides/guard.ts';
import { spacedProvider } from '../../../functions/invoicing/guides/spaced-provider.ts';
import { getIntent } from '../../../functions/invoicing/intent-record.ts';
import { issueIntent, tenantDay } from '../../../functions/invoicing/issue.ts';
import { reconcileById } from '../../../functions/invoicing/reconcile.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { importWorker, invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import type { Caller } from '../../../shared/http/operation.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { guideRoute, useGuideWorld, type GoodsSpec, type GuideWorld } from '../dispatch-guides/support.ts';
import { RUT } from '../integrations/support.ts';
import { guideConnection } from './world.ts';

/**
 * decisions 19: the look-up reads a shipping's lines whole and never takes what it cannot read
 * or only nearly matches for proof of absence; the answer window is a setting counted from the
 * end of the send; "none exists" waits for it; claims are per provider company.
 */
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

describe('dispatch guides exactly once, third pass (decisions 19)', () => {
  let { fake, tenant, admin, operator, driver, ready, provider } = {} as GuideWorld;
  const DEADLINE_MS = 300;
  const world = useGuideWorld(stack, { timeoutMs: DEADLINE_MS, reconciler: 'manual' });
  beforeAll(() => {
    ({ fake, tenant, admin, operator, driver, ready, provider } = world());
    fake.setRateLimit(null);
  });
  beforeEach(() => fake.faults.clear());
  afterEach(() => void delete process.env.GUIDE_ANSWER_WINDOW_SECONDS);

  const caller = (t = tenant, member = admin): Caller => ({ requestId: crypto.randomUUID(), tenantId: t.id, member: { id: member.id } as Caller['member'], claims: {}, now: new Date(), publicBaseUrl: '' });
  const actor = { actorId: 'third-pass', requestId: 'third-pass' };
  const made = async (spec: Partial<GoodsSpec> = {}, t = tenant, goods = ready, members = { admin, operator, driver }) => {
    const place = spec.municipality ?? `third-${crypto.randomUUID().slice(0, 8)}`;
    const { route } = await guideRoute(t, members.operator, members.driver, [{ connectionId: goods.connectionId, customerId: goods.customerId, ...spec, municipality: place }]);
    await commit((await createRouteGuides(caller(t, members.admin), route.id, 'sale')).writes);
    return { place, intentId: (await findStopGuide(t.id, route.id, route.stops[0]!.id))!.intentId };
  };
  const issue = async (intentId: string, t = tenant, connectionId = ready.connectionId) => {
    const { writes, record } = await runAs(importWorker.name, () => issueIntent(t.id, intentId, new Date(), actor, { provider: spacedProvider(provider, connectionId), deadlineMs: DEADLINE_MS }));
    await commit(writes);
    return record;
  };
  const reconcile = async (intentId: string, at: Date, t = tenant) => {
    const { writes, record } = await reconcileById(t.id, intentId, at, { provider, inFlightMs: 0 });
    if (writes.length) await commit(writes);
    return record;
  };
  const shippingsAt = (place: string) => fake.shippings(ready.token).filter((s) => s.municipality === place);
  const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
  const lines = (count: number) => Array.from({ length: count }, (_, i) => ({ description: `Saco ${i + 1}`, quantity: String(i + 1), unitPriceMinor: '1000' }));

  it('finds a lost 30-line guide by lines read whole (25 expanded, 5 from details.json), and does not send it again', async () => {
    const { place, intentId } = await made({ lines: lines(30) });
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    expect((await issue(intentId)).localState).toBe('unknown');
    const shipping = shippingsAt(place)[0]!;
    const found = await reconcile(intentId, later(60));
    expect([found.localState, found.externalDocumentId]).toEqual(['issued', String(shipping.guide.id)]);
    expect(fake.requests.some((r) => r.path.startsWith(`/v1/shippings/${shipping.id}/details.json?`) && r.path.includes('offset=25'))).toBe(true);
    await runAs(invoiceReconciler.name, () => runReconciler(later(3_600), { provider, inFlightMs: 0 }));
    expect(shippingsAt(place)).toHaveLength(1);
  });

  it('a candidate whose lines cannot be read holds the guide for an admin, even after the window: never "absent"', async () => {
    const { place, intentId } = await made({ lines: lines(3) });
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    await issue(intentId);
    const shipping = shippingsAt(place)[0]!;
    fake.damageShippingLines(ready.token, shipping.id);
    const held = await reconcile(intentId, later(3_600));
    expect([held.localState, held.reconcileDueAt, held.shippingLookup?.ambiguous]).toEqual(['unknown', null, [String(shipping.guide.id)]]);
    await runAs(invoiceReconciler.name, () => runReconciler(later(7_200), { provider, inFlightMs: 0 }));
    expect(shippingsAt(place)).toHaveLength(1);
    const resolved = await tenant.call(admin, 'POST', `/v1/customer-finance/invoice-intents/${intentId}/resolve`, { body: { externalDocumentId: String(shipping.guide.id) } });
    expect([resolved.status, resolved.body.localState], resolved.text).toEqual([200, 'issued']);
  });

  it('a shipping that differs only as the provider is not documented to change it (case, spaces) holds the guide, never proves absence', async () => {
    const { place, intentId } = await made();
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' }); // ours never applied
    await issue(intentId);
    // The same guide as a provider that upper-cases and pads the address would keep it.
    const body = {
      documentTypeId: 8, officeId: 1, emissionDate: tenantDay(new Date(), 'America/Santiago'), shippingTypeId: 1, declareSii: 1, clientId: 2,
      address: ' SAN PABLO 3000', municipality: place, city: 'Santiago', recipient: 'Recibe 0',
      details: [{ comment: 'Harina 25 kg', quantity: 2, netUnitValue: 18990 }, { comment: 'Aceite 1 L', quantity: 0.5, netUnitValue: 2490 }],
    };
    const near = await fetch(`${fake.apiUrl}/v1/shippings.json`, { method: 'POST', headers: { access_token: ready.token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(near.status).toBe(201);
    const held = await reconcile(intentId, later(3_600));
    expect([held.localState, held.reconcileDueAt, held.shippingLookup?.ambiguous]).toEqual(['unknown', null, [String((await near.json()).guide.id)]]);
    await runAs(invoiceReconciler.name, () => runReconciler(later(7_200), { provider, inFlightMs: 0 }));
    expect(shippingsAt(place)).toHaveLength(1); // nothing sent on a guess
  });

  it('the answer window is GUIDE_ANSWER_WINDOW_SECONDS from the end of the send; "none exists" waits for it (409 answer_window_open)', async () => {
    process.env.GUIDE_ANSWER_WINDOW_SECONDS = '60';
    const { place, intentId } = await made();
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' });
    const lost = await issue(intentId);
    const endedAt = Date.parse(lost.submission!.sendEndedAt!);
    // The send ended at its deadline, not when it was committed.
    expect(endedAt - Date.parse(lost.submission!.submittedAt)).toBeGreaterThanOrEqual(DEADLINE_MS);
    const resolve = () => tenant.call(admin, 'POST', `/v1/customer-finance/invoice-intents/${intentId}/resolve`, { body: { externalDocumentId: null } });
    const early = await resolve();
    expect([early.status, early.body.code, early.body.answerWindowEndsAt], early.text).toEqual([409, 'answer_window_open', new Date(endedAt + 60_000).toISOString()]);
    const waiting = await reconcile(intentId, new Date(endedAt + 59_000));
    expect([waiting.localState, waiting.reconcileDueAt! >= new Date(endedAt + 60_000).toISOString()]).toEqual(['unknown', true]);
    // A look whose read fails has not ended: it proves nothing, however late.
    fake.faults.add({ route: 'GET /v1/shippings.json', kind: 'status', status: 500 });
    await expect(reconcile(intentId, new Date(endedAt + 61_000))).rejects.toMatchObject({ code: 'provider_unavailable' });
    expect((await getIntent(tenant.id, intentId)).localState).toBe('unknown');
    const proven = await reconcile(intentId, new Date(endedAt + 61_000));
    expect([proven.localState, proven.providerState]).toEqual(['approved', 'not_sent']);
    expect(shippingsAt(place)).toEqual([]);
    // After the window, an admin's "none" is accepted for a guide still unknown.
    const other = await made();
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' });
    await issue(other.intentId);
    process.env.GUIDE_ANSWER_WINDOW_SECONDS = '0';
    const none = await tenant.call(admin, 'POST', `/v1/customer-finance/invoice-intents/${other.intentId}/resolve`, { body: { externalDocumentId: null } });
    expect([none.status, none.body.localState], none.text).toEqual([200, 'approved']);
  });

  it('claims are per provider company: another tenant’s connection of the same company never takes a guide this one holds', async () => {
    const second = await TestTenant.create(stack());
    const [admin2, operator2, driver2] = await Promise.all([second.member('admin'), second.member('operator'), second.member('driver')]);
    const ready2 = await guideConnection(fake, second, admin2, { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' }, ready.token);
    const place = `third-${crypto.randomUUID().slice(0, 8)}`;
    // The same goods to the same place from both tenants: their shippings are alike in every field.
    const mine = await made({ municipality: place });
    expect((await issue(mine.intentId)).localState).toBe('issued');
    const theirs = await made({ municipality: place }, second, ready2, { admin: admin2, operator: operator2, driver: driver2 });
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' });
    expect((await issue(theirs.intentId, second, ready2.connectionId)).localState).toBe('unknown');
    const taken = String(shippingsAt(place)[0]!.guide.id);
    const claimed = await second.call(admin2, 'POST', `/v1/customer-finance/invoice-intents/${theirs.intentId}/resolve`, { body: { externalDocumentId: taken } });
    // Held by another tenant's guide: refused, without naming it.
    expect([claimed.status, claimed.body.code, claimed.body.invoiceIntentId]).toEqual([409, 'document_claimed', undefined]);
    // The look-up after the window does not take the other tenant's guide: none of its own, so it is sent.
    expect((await reconcile(theirs.intentId, later(3_600), second)).localState).toBe('approved');
    await runAs(invoiceReconciler.name, () => runReconciler(later(7_200), { provider, inFlightMs: 0 }));
    const settled = await getIntent(second.id, theirs.intentId);
    expect(settled.localState).toBe('issued');
    expect(settled.externalDocumentId).not.toBe(taken);
    expect(shippingsAt(place)).toHaveLength(2);
  });
});
