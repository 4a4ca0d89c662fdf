import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { PREFIX } from '../invoicing/support.ts';
import { eventCollector, tokenOf, waitFor, waitForView } from '../operations/support.ts';
import { guideConnection, guideRoute, guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from './support.ts';

/** decisions 14, through the real provider-chile-v1 adapter against the provider fake. */
const collector = eventCollector();
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' }, extraStreamConsumers: { 'test-events': collector.consumer } });

describe('dispatch guides of a route (decisions 14)', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;
  const world = useGuideWorld(stack);
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  it('makes one approved guide per stop with goods, issues it through a shipping, and the stop, intent and event show it', async () => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId, municipality: 'Quinta Normal' };
    const { orders, route } = await guideRoute(tenant, operator, driver, [goods, { connectionId: null }, goods]);
    const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect(answer.status, answer.text).toBe(202);
    const [first, , third] = route.stops;
    expect(answer.body.items).toEqual([
      { stopId: first!.id, orderId: orders[0].id, intentId: expect.any(String) },
      { stopId: third!.id, orderId: orders[2].id, intentId: expect.any(String) },
    ]);
    const issued = await waitForGuides(tenant, admin, route.id, 2);
    expect(issued.stops[1].dispatchGuide).toBeNull();
    const shown = issued.stops[0].dispatchGuide;
    // With the route's plate, which the driver writes on the printed guide (SII Res. Ex. 51/2015).
    expect(shown).toEqual({ intentId: answer.body.items[0].intentId, number: expect.any(String), localState: 'issued', plate: (route as unknown as { vehicle: { plate: string } }).vehicle.plate });

    const intent = (await tenant.call(admin, 'GET', `${PREFIX}/${shown.intentId}`)).body;
    expect(intent).toMatchObject({
      documentKind: 'dispatch_guide',
      localState: 'issued',
      currency: 'CLP',
      minorUnitScale: 0,
      customerId: ready.customerId,
      documentNumber: shown.number,
      dispatch: { orderId: orders[0].id, routeId: route.id, stopId: first!.id, transfer: 'sale' },
      // 2 x 18990 + 0.5 x 2490
      totalMinor: '39225',
    });
    // The provider's shipping, once per salesId; the intent names the guide document, not the shipping.
    const shipping = fake.shippings(ready.token).find((s) => s.salesId === intent.correlationId)!;
    expect(shipping).toMatchObject({ address: 'San Pablo 3000', municipality: 'Quinta Normal', city: 'Santiago', recipient: 'Recibe 0', shipping_type: { id: '1' } });
    expect(intent.externalDocumentId).toBe(String(shipping.guide.id));
    expect(intent.externalDocumentId).not.toBe(String(shipping.id));
    const guide = fake.documents(ready.token).find((d) => String(d.id) === String(shipping.guide.id))!;
    // The provider keeps no salesId on a shipping's guide (decisions 16).
    expect([String(guide.number), guide.salesId, String(guide.document_type.id), String(guide.client?.id)]).toEqual([shown.number, null, '8', '2']);
    expect(fake.details(ready.token, guide.id).map((d) => [d.quantity, d.netUnitValue])).toEqual([[2, 18990], [0.5, 2490]]);
    // The order without goods got nothing; the third's address had no comuna or city: empty strings.
    expect(fake.shippings(ready.token).find((s) => s.recipient === 'Recibe 2')).toMatchObject({ municipality: 'Quinta Normal' });
    const events = await waitFor(() => {
      const found = collector.events.filter((e) => e.type === 'finance.invoice.issued' && e.data.documentKind === 'dispatch_guide' && e.tenantId === tenant.id);
      return found.length === 2 ? found : undefined;
    });
    expect(events.map((e) => e.data.invoiceIntentId).sort()).toEqual(answer.body.items.map((i: { intentId: string }) => i.intentId).sort());
    // The public tracking view shows the folio only.
    const view = await waitForView(stack(), tokenOf(orders[0]), (v) => v.dispatchGuideNumber !== null);
    expect(view.dispatchGuideNumber).toBe(shown.number);
    expect((await waitForView(stack(), tokenOf(orders[1]), () => true)).dispatchGuideNumber).toBeNull();
  });

  it('is idempotent: the same key replays, another key makes nothing new and answers the same guides', async () => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId };
    const { route } = await guideRoute(tenant, operator, driver, [goods, goods]);
    const key = crypto.randomUUID();
    const body = { transfer: 'internal_transfer', destinationOfficeId: '2' };
    const once = await tenant.call(admin, 'POST', guidesPath(route.id), { body, idempotencyKey: key });
    const replay = await tenant.call(admin, 'POST', guidesPath(route.id), { body, idempotencyKey: key });
    const again = await tenant.call(admin, 'POST', guidesPath(route.id), { body });
    expect([once.status, replay.status, again.status]).toEqual([202, 202, 202]);
    expect(replay.body).toEqual(once.body);
    expect(again.body).toEqual(once.body);
    await waitForGuides(tenant, admin, route.id, 2);
    const intents = await Promise.all(once.body.items.map(async (i: { intentId: string }) => (await tenant.call(admin, 'GET', `${PREFIX}/${i.intentId}`)).body));
    for (const intent of intents) expect(fake.shippings(ready.token).filter((s) => s.salesId === intent.correlationId).map((s) => s.shipping_type.id)).toEqual(['5']);
  });

  it('answers 409 invalid_state unless the route is assigned, and only an admin may ask', async () => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId };
    const { route } = await guideRoute(tenant, operator, driver, [goods]);
    const byOperator = await tenant.call(operator, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect(byOperator.status).toBe(403);
    const bad = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'gift' } });
    expect(bad.status).toBe(400);
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`)).status).toBe(200);
    const started = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect([started.status, started.body.code]).toEqual([409, 'invalid_state']);
    expect((await tenant.call(admin, 'POST', guidesPath(crypto.randomUUID()), { body: { transfer: 'sale' } })).status).toBe(404);
  });

  it('answers 409 connection_not_ready without the guide settings and connection_revoked for a revoked connection', async () => {
    const plain = await guideConnection(fake, tenant, admin, { clientCode: RUT.b, clientName: 'Lácteos del Sur SpA' });
    const connection = (await tenant.call(admin, 'GET', `/v1/integrations/connections/${plain.connectionId}`)).body;
    const { documentTypeIds, officeId, vatTaxId } = connection.issueSettings;
    const withoutGuides = { officeId, vatTaxId, documentTypeIds: { receipt: documentTypeIds.receipt, invoice: documentTypeIds.invoice, creditNote: documentTypeIds.creditNote } };
    const put = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${plain.connectionId}/issue-settings`, { body: { version: connection.version, ...withoutGuides } });
    expect(put.status, put.text).toBe(200);
    const { route } = await guideRoute(tenant, operator, driver, [{ connectionId: plain.connectionId, customerId: plain.customerId }]);
    const notReady = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect([notReady.status, notReady.body.code, notReady.body.connectionId]).toEqual([409, 'connection_not_ready', plain.connectionId]);
    const revoked = await tenant.call(admin, 'POST', `/v1/integrations/connections/${plain.connectionId}/revoke`, { body: { version: put.body.version } });
    expect(revoked.status, revoked.text).toBe(200);
    const gone = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect([gone.status, gone.body.code]).toEqual([409, 'connection_revoked']);
    expect((await tenant.call(admin, 'GET', `/v1/field/routes/${route.id}`)).body.stops[0].dispatchGuide).toBeNull();
  });

  it('refuses a credit note naming a guide (422 invalid_invoice)', async () => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId };
    const { route } = await guideRoute(tenant, operator, driver, [goods]);
    const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    await waitForGuides(tenant, admin, route.id, 1);
    const credit = await tenant.call(operator, 'POST', PREFIX, {
      body: {
        connectionId: ready.connectionId,
        documentKind: 'credit_note',
        customerId: ready.customerId,
        creditedInvoiceId: answer.body.items[0].intentId,
        currency: 'CLP',
        minorUnitScale: 0,
        totalMinor: '18990',
        lines: [{ conceptKey: 'goods', description: 'Harina 25 kg', quantity: 1, unitPriceMinor: '18990', creditedPosition: 1 }],
      },
    });
    expect([credit.status, credit.body.code]).toEqual([422, 'invalid_invoice']);
    expect(credit.body.errors.map((e: { path: string }) => e.path)).toContain('body.creditedInvoiceId');
    // Nor is a guide created through the invoice intents.
    const direct = await tenant.call(operator, 'POST', PREFIX, {
      body: { connectionId: ready.connectionId, documentKind: 'dispatch_guide', customerId: null, currency: 'CLP', minorUnitScale: 0, totalMinor: '1', lines: [{ conceptKey: 'x', description: 'y', quantity: 1, unitPriceMinor: '1' }] },
    });
    expect(direct.status).toBe(400);
  });

  it('gives a stop a new guide once its guide was rejected, never a second live one', async () => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId };
    const { route } = await guideRoute(tenant, operator, driver, [goods]);
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'status', status: 400 });
    const first = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'other_transfer' } });
    expect(first.status, first.text).toBe(202);
    await waitForGuides(tenant, admin, route.id, 1, ['rejected']);
    const second = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'other_transfer' } });
    expect(second.status, second.text).toBe(202);
    expect(second.body.items[0].intentId).not.toBe(first.body.items[0].intentId);
    const settled = await waitForGuides(tenant, admin, route.id, 1);
    expect(settled.stops[0].dispatchGuide.intentId).toBe(second.body.items[0].intentId);
    const rejected = (await tenant.call(admin, 'GET', `${PREFIX}/${first.body.items[0].intentId}`)).body;
    expect(rejected).toMatchObject({ localState: 'rejected', providerState: 'rejected' });
    expect(fake.shippings(ready.token).filter((s) => s.salesId === rejected.correlationId)).toHaveLength(0);
  });

  it('with dispatchGuidesRequiredToStart, start answers 409 dispatch_guides_missing naming the stops until their guides are issued', async () => {
    const settings = (await tenant.call(admin, 'GET', '/v1/tenant/settings')).body;
    const patched = await tenant.call(admin, 'PATCH', '/v1/tenant/settings', { body: { version: settings.version, dispatchGuidesRequiredToStart: true } });
    expect(patched.status, patched.text).toBe(200);
    try {
      const goods = { connectionId: ready.connectionId, customerId: ready.customerId };
      const { route } = await guideRoute(tenant, operator, driver, [goods, { connectionId: null }, goods]);
      const refused = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
      expect([refused.status, refused.body.code]).toEqual([409, 'dispatch_guides_missing']);
      expect(refused.body.stopIds).toEqual([route.stops[0]!.id, route.stops[2]!.id]);
      expect((await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } })).status).toBe(202);
      await waitForGuides(tenant, admin, route.id, 2);
      const started = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
      expect(started.status, started.text).toBe(200);
      expect(started.body.stops[0].dispatchGuide.localState).toBe('issued');
      // A stop's own answer shows its guide too.
      const delivered = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0]!.id}/deliver`, { body: {} });
      expect(delivered.status, delivered.text).toBe(200);
      expect(delivered.body.dispatchGuide).toEqual(started.body.stops[0].dispatchGuide);
      // A route without goods starts as before.
      const { route: plain } = await guideRoute(tenant, operator, driver, [{ connectionId: null }]);
      expect((await tenant.call(driver, 'POST', `/v1/field/routes/${plain.id}/start`)).status).toBe(200);
    } finally {
      const now = (await tenant.call(admin, 'GET', '/v1/tenant/settings')).body;
      await tenant.call(admin, 'PATCH', '/v1/tenant/settings', { body: { version: now.version, dispatchGuidesRequiredToStart: false } });
    }
  });
});
