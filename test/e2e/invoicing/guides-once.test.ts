import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRouteGuides } from '../../../functions/field/dispatch-guides.ts';
import { findStopGuide } from '../../../functions/invoicing/guides/guard.ts';
import { spacedProvider } from '../../../functions/invoicing/guides/spaced-provider.ts';
import { getIntent, saveIntent } from '../../../functions/invoicing/intent-record.ts';
import { issueIntent, tenantDay } from '../../../functions/invoicing/issue.ts';
import { reconcileById } from '../../../functions/invoicing/reconcile.ts';
import { runReconciler } from '../../../functions/invoicing/reconciler/run.ts';
import { importWorker, invoiceReconciler } from '../../../functions/jobs.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import type { Caller } from '../../../shared/http/operation.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { useLocalStack } from '../../support/stack.ts';
import { guideRoute, useGuideWorld, type GuideWorld } from '../dispatch-guides/support.ts';
import { twinRoute } from './guide-twins.ts';
import { fakeProviderChile } from './world.ts';

/**
 * decisions 16: a guide exactly once without the provider's help. The fake makes a shipping per
 * POST whatever its salesId, so a guide whose send was lost is found by its shipping's fields,
 * sent again only after the answer window, held for an admin when two shippings cannot be told
 * apart (docs/guides-exactly-once.md).
 */
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

describe('one guide per stop with a provider that ignores salesId on shippings (decisions 16)', () => {
  let { fake, tenant, admin, operator, driver, ready, provider } = {} as GuideWorld;
  const DEADLINE_MS = 300;

  const world = useGuideWorld(stack, { timeoutMs: DEADLINE_MS, reconciler: 'manual' });
  beforeAll(() => {
    ({ fake, tenant, admin, operator, driver, ready, provider } = world());
    fake.setRateLimit(null);
  });
  beforeEach(() => fake.faults.clear());

  const caller = (): Caller => ({ requestId: crypto.randomUUID(), tenantId: tenant.id, member: { id: admin.id } as Caller['member'], claims: {}, now: new Date(), publicBaseUrl: '' });
  const actor = { actorId: 'guides-once', requestId: 'guides-once' };
  /** Guides made for every stop of a new route (committed, no worker); `twins`: stops whose shippings are alike in every field. */
  const madeGuides = async (count: number, twins = false) => {
    const place = `once-${crypto.randomUUID().slice(0, 8)}`;
    const specs = Array.from({ length: count }, () => ({ connectionId: ready.connectionId, customerId: ready.customerId, municipality: place }));
    const route = twins
      ? await twinRoute(tenant, operator, driver, { connectionId: ready.connectionId, customerId: ready.customerId }, count, place)
      : (await guideRoute(tenant, operator, driver, specs)).route;
    await commit((await createRouteGuides(caller(), route.id, 'sale')).writes);
    const intentIds = [];
    for (const stop of route.stops) intentIds.push((await findStopGuide(tenant.id, route.id, stop.id))!.intentId);
    return { place, route, intentIds };
  };
  const issue = async (intentId: string, at = new Date(), through = provider, deadlineMs = DEADLINE_MS) => {
    const { writes, record } = await runAs(importWorker.name, () => issueIntent(tenant.id, intentId, at, actor, { provider: spacedProvider(through, ready.connectionId), deadlineMs }));
    await commit(writes);
    return record;
  };
  const reconcile = async (intentId: string, at: Date, lookupBudgetMs?: number, through = provider) => {
    const { writes, record } = await reconcileById(tenant.id, intentId, at, { provider: through, inFlightMs: 0, lookupBudgetMs });
    if (writes.length) await commit(writes);
    return record;
  };
  const shippingsAt = (place: string) => fake.shippings(ready.token).filter((s) => s.municipality === place);
  const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

  it('a failed read of the guide after its shipping was made (403, 401, 500) leaves the guide unknown, never rejected, and it is read again', async () => {
    // Nothing here hangs: deadlines a loaded machine cannot reach, so the read that fails is the issue's.
    const patient = fakeProviderChile(fake, 60_000);
    for (const status of [403, 401, 500]) {
      const { place, intentIds } = await madeGuides(1);
      fake.faults.add({ route: 'GET /v1/documents/{id}.json', kind: 'status', status });
      const after = await issue(intentIds[0]!, new Date(), patient, 60_000);
      expect([after.localState, after.externalDocumentId], String(status)).toEqual(['unknown', String(shippingsAt(place)[0]!.guide.id)]);
      const settled = await reconcile(intentIds[0]!, later(1), undefined, patient);
      expect(settled.localState).toBe('issued');
      expect(shippingsAt(place)).toHaveLength(1);
    }
  });

  it('a send whose answer was lost is found by its shipping’s fields (the provider keeps no salesId on it), and not sent again', async () => {
    const { place, intentIds } = await madeGuides(2);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    expect((await issue(intentIds[0]!)).localState).toBe('unknown');
    expect(fake.documents(ready.token).find((d) => String(d.id) === String(shippingsAt(place)[0]!.guide.id))!.salesId).toBeNull();
    // The other stop's guide (another address) is not taken for it.
    expect((await issue(intentIds[1]!)).localState).toBe('issued');
    const found = await reconcile(intentIds[0]!, later(1));
    expect([found.localState, found.externalDocumentId]).toEqual(['issued', String(shippingsAt(place)[0]!.guide.id)]);
    expect(shippingsAt(place)).toHaveLength(2);
  });

  it('nothing found is proof only after the answer window: then, and only then, the guide is sent again', async () => {
    const { place, intentIds } = await madeGuides(1);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' }); // never applied
    const lost = await issue(intentIds[0]!);
    expect(lost.localState).toBe('unknown');
    const early = await reconcile(intentIds[0]!, later(2));
    expect([early.localState, shippingsAt(place)]).toEqual(['unknown', []]);
    // Not due before the window ends (10 minutes after the send's deadline).
    expect(Date.parse(early.reconcileDueAt!)).toBeGreaterThanOrEqual(Date.parse(lost.submission!.submittedAt) + 10 * 60_000);
    const proven = await reconcile(intentIds[0]!, later(11));
    expect(proven.localState).toBe('approved');
    await runAs(invoiceReconciler.name, () => runReconciler(later(80), { inFlightMs: 0 }));
    expect((await getIntent(tenant.id, intentIds[0]!)).localState).toBe('issued');
    expect(shippingsAt(place)).toHaveLength(1);
  });

  it('a POST that waited its turn past its deadline is never sent', async () => {
    const { place, intentIds } = await madeGuides(1);
    const spaced = spacedProvider(provider, ready.connectionId);
    const posts = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/shippings.json').length;
    const postsBefore = posts();
    // Another call of the connection holds the turn until the issue has answered, however slow
    // the machine: the issue's 100 ms deadline passes while its POST waits.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = spacedProvider({ listShippingTypes: () => released.then(() => ({ items: [], next: null })) } as unknown as typeof provider, ready.connectionId);
    const busy = holder.listShippingTypes({ accessToken: ready.token });
    const { writes, record } = await runAs(importWorker.name, () => issueIntent(tenant.id, intentIds[0]!, new Date(), actor, { provider: spaced, deadlineMs: 100 }));
    await commit(writes);
    expect(record.localState).toBe('unknown');
    release();
    await busy;
    // Turns are taken in order: once a call queued after the POST has answered, the POST had its turn.
    await spaced.listShippingTypes({ accessToken: ready.token });
    expect(shippingsAt(place)).toEqual([]);
    expect(posts()).toBe(postsBefore);
  });

  it('twins both sent and both lost are held unknown for an admin, who settles each through resolve (idempotent, audited)', async () => {
    const { place, intentIds } = await madeGuides(2, true);
    for (const id of intentIds) {
      fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
      expect((await issue(id)).localState).toBe('unknown');
    }
    const guides = shippingsAt(place).map((s) => String(s.guide.id));
    expect(guides).toHaveLength(2);
    for (const id of intentIds) {
      const held = await reconcile(id, later(1));
      expect([held.localState, held.reconcileDueAt, held.shippingLookup?.ambiguous]).toEqual(['unknown', null, guides]);
    }
    // The reconciler leaves them alone: nothing is sent, nothing taken.
    await runAs(invoiceReconciler.name, () => runReconciler(later(120), { inFlightMs: 0 }));
    expect(shippingsAt(place)).toHaveLength(2);
    const listed = await tenant.call(admin, 'GET', '/v1/customer-finance/invoice-intents?localState=unknown&limit=100');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining(intentIds));
    expect(listed.body.items.every((i: { localState: string }) => i.localState === 'unknown')).toBe(true);
    expect((await tenant.call(admin, 'GET', '/v1/customer-finance/invoice-intents?localState=lost')).status).toBe(400);

    const resolve = (id: string, body: unknown, member = admin, idempotencyKey?: string) =>
      tenant.call(member, 'POST', `/v1/customer-finance/invoice-intents/${id}/resolve`, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });
    expect((await resolve(intentIds[0]!, { externalDocumentId: guides[0] }, operator)).status).toBe(403);
    for (const bad of [{}, { externalDocumentId: 5 }, { externalDocumentId: guides[0], extra: 1 }]) expect((await resolve(intentIds[0]!, bad)).status, JSON.stringify(bad)).toBe(400);
    const unknownDocument = await resolve(intentIds[0]!, { externalDocumentId: '999999' });
    expect([unknownDocument.status, unknownDocument.body.code, unknownDocument.body.errors?.[0]?.path]).toEqual([422, 'invalid_guide_document', 'body.externalDocumentId']);
    const key = crypto.randomUUID();
    const first = await resolve(intentIds[0]!, { externalDocumentId: guides[0] }, admin, key);
    expect([first.status, first.body.localState, first.body.externalDocumentId], first.text).toEqual([200, 'issued', guides[0]]);
    const replay = await resolve(intentIds[0]!, { externalDocumentId: guides[0] }, admin, key);
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body]).toEqual([200, 'true', first.body]);
    expect((await resolve(intentIds[0]!, { externalDocumentId: guides[0] })).status).toBe(409); // no longer unknown
    const claimed = await resolve(intentIds[1]!, { externalDocumentId: guides[0] });
    expect([claimed.status, claimed.body.code]).toEqual([409, 'document_claimed']);
    const second = await resolve(intentIds[1]!, { externalDocumentId: guides[1] });
    expect([second.status, second.body.localState]).toEqual([200, 'issued']);
    const audit = await tenant.call(admin, 'GET', `/v1/audit?resourceId=${intentIds[1]}`);
    expect(audit.body.items.filter((e: { action: string }) => e.action === 'resolveInvoiceIntent').map((e: { actorId: string }) => e.actorId)).toEqual([admin.id]);
    expect(shippingsAt(place)).toHaveLength(2);
  });

  it('an admin who knows no guide exists sends the intent back to approved, and the reconciler sends it', async () => {
    const { place, intentIds } = await madeGuides(1);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'hang' });
    expect((await issue(intentIds[0]!)).localState).toBe('unknown');
    const resolveNone = () => tenant.call(admin, 'POST', `/v1/customer-finance/invoice-intents/${intentIds[0]}/resolve`, { body: { externalDocumentId: null } });
    // Not while the provider may still apply the send (decisions 19)...
    expect((await resolveNone()).body.code).toBe('answer_window_open');
    // ...and once its window has passed (here a window of 0 s).
    process.env.GUIDE_ANSWER_WINDOW_SECONDS = '0';
    const none = await resolveNone().finally(() => delete process.env.GUIDE_ANSWER_WINDOW_SECONDS);
    expect([none.status, none.body.localState, none.body.providerState], none.text).toEqual([200, 'approved', 'not_sent']);
    await runAs(invoiceReconciler.name, () => runReconciler(later(80), { inFlightMs: 0 }));
    expect((await getIntent(tenant.id, intentIds[0]!)).localState).toBe('issued');
    expect(shippingsAt(place)).toHaveLength(1);
  });

  it('a look-up through a busy day saves its place on the intent and goes on at the next look, instead of failing at its deadline', async () => {
    const day = tenantDay(new Date(), 'America/Santiago');
    // 120 other shippings of the day, office and type come before ours: three pages.
    for (let i = 0; i < 120; i++) {
      const body = { documentTypeId: 8, officeId: 1, emissionDate: day, shippingTypeId: 1, declareSii: 1, address: `Otra ${i}`, municipality: '', city: '', recipient: `Otro ${i}`, details: [{ comment: 'Caja', quantity: 1, netUnitValue: 0 }] };
      const made = await fetch(`${fake.apiUrl}/v1/shippings.json`, { method: 'POST', headers: { access_token: ready.token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(made.status).toBe(201);
    }
    const { place, intentIds } = await madeGuides(1);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    expect((await issue(intentIds[0]!)).localState).toBe('unknown');
    // A budget of 0 lets each look read exactly one page: it stands for a day too long for one 8 s look.
    const offsets: number[] = [];
    let at = later(1);
    let record = await reconcile(intentIds[0]!, at, 0);
    for (let look = 0; look < 5 && record.localState === 'unknown'; look++) {
      offsets.push(record.shippingLookup!.progress!.offset);
      expect(Date.parse(record.reconcileDueAt!) - at.getTime()).toBe(60_000); // the next run goes on
      at = later(2 + look);
      record = await reconcile(intentIds[0]!, at, 0);
    }
    expect(offsets.slice(0, 2)).toEqual([50, 100]);
    expect([record.localState, record.externalDocumentId, record.shippingLookup?.progress]).toEqual(['issued', String(shippingsAt(place)[0]!.guide.id), null]);
    expect(shippingsAt(place)).toHaveLength(1);
  });

  it('an internal transfer goes with its destination office and no client, and its lost send is found all the same', async () => {
    const place = `once-${crypto.randomUUID().slice(0, 8)}`;
    const { route } = await guideRoute(tenant, operator, driver, [{ connectionId: ready.connectionId, customerId: ready.customerId, municipality: place }]);
    await commit((await createRouteGuides(caller(), route.id, { transfer: 'internal_transfer', destinationOfficeId: '2' })).writes);
    const intentId = (await findStopGuide(tenant.id, route.id, route.stops[0]!.id))!.intentId;
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    expect((await issue(intentId)).localState).toBe('unknown');
    const sent = shippingsAt(place);
    expect(sent.map((s) => [s.destinationOfficeId, s.shipping_type.id])).toEqual([[2, '5']]);
    expect(fake.documents(ready.token).find((d) => String(d.id) === String(sent[0]!.guide.id))!.client).toBeNull();
    const found = await reconcile(intentId, later(1));
    expect([found.localState, found.externalDocumentId]).toEqual(['issued', String(sent[0]!.guide.id)]);
    expect(shippingsAt(place)).toHaveLength(1);
  });
});
