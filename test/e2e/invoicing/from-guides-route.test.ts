import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalStack } from '../../support/stack.ts';
import { guideRoute, guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from '../dispatch-guides/support.ts';
import { PREFIX } from './support.ts';

const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

/** decisions 14 end to end: guides a route issued (real adapter, provider fake), then one invoice from them. */
describe('an invoice made from the guides a route issued', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;
  const priced: Array<{ description: string; quantity: string | number; unitPriceMinor: string | null }> = [
    { description: 'Harina 25 kg', quantity: '2', unitPriceMinor: '18990' },
    { description: 'Aceite 1 L', quantity: 0.5, unitPriceMinor: '2490' },
  ];
  /** A route of `stops` stops with goods, its guides issued with `transfer`; answers the guide intents. */
  const issuedGuides = async (stops: number, transfer: string, lines = priced, extra: Record<string, string> = {}) => {
    const goods = { connectionId: ready.connectionId, customerId: ready.customerId, lines };
    const { route } = await guideRoute(tenant, operator, driver, Array.from({ length: stops }, () => goods));
    const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer, ...extra } });
    expect(answer.status, answer.text).toBe(202);
    await waitForGuides(tenant, admin, route.id, stops);
    return Promise.all(answer.body.items.map(async (item: { intentId: string }) => (await tenant.call(admin, 'GET', `${PREFIX}/${item.intentId}`)).body));
  };
  const invoiceOf = (guideIds: string[], totalMinor: string) =>
    tenant.call(operator, 'POST', PREFIX, {
      body: { connectionId: ready.connectionId, documentKind: 'invoice', customerId: ready.customerId, currency: 'CLP', minorUnitScale: 0, totalMinor, dispatchGuideIds: guideIds },
    });

  const world = useGuideWorld(stack);
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  it('copies both guides’ lines and references each guide document at the provider', async () => {
    const guides = await issuedGuides(2, 'sale');
    // Per guide: 2 x 18990 + 0.5 x 2490 = 39225.
    const created = await invoiceOf(guides.map((g) => g.id), '78450');
    expect(created.status, created.text).toBe(201);
    const lines = (await tenant.call(operator, 'GET', `${PREFIX}/${created.body.id}/lines`)).body.items;
    expect(lines.map((l: { position: number; description: string; lineTotalMinor: string }) => [l.position, l.description, l.lineTotalMinor])).toEqual([
      [1, 'Harina 25 kg', '37980'],
      [2, 'Aceite 1 L', '1245'],
      [3, 'Harina 25 kg', '37980'],
      [4, 'Aceite 1 L', '1245'],
    ]);
    await tenant.call(operator, 'POST', `${PREFIX}/${created.body.id}/review`, { body: { version: 1 } });
    await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/approve`, { body: { version: 2 } });
    const issued = await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/issue`);
    expect(issued.body).toMatchObject({ localState: 'issued', dispatchGuideIds: guides.map((g) => g.id) });
    const documents = fake.documents(ready.token);
    const guideDocument = (id: string) => documents.find((d) => String(d.id) === id)!;
    expect(fake.references(ready.token, Number(issued.body.externalDocumentId))).toEqual(
      guides.map((g) => ({ number: g.documentNumber, referenceDate: guideDocument(g.externalDocumentId).emissionDate, codeSii: 52, reason: '' })),
    );
    expect(guides.map((g) => String(guideDocument(g.externalDocumentId).number))).toEqual(guides.map((g) => g.documentNumber));
    expect((await invoiceOf([guides[1].id], '39225')).body.code).toBe('guide_already_invoiced');
  });

  // A sale guide without prices can no longer be made (decisions 16: 422 invalid_guides, test/e2e/dispatch-guides/rules.test.ts).
  it('refuses the guides of transfers, which moved goods without a sale (422 naming the guide)', async () => {
    const [internal] = await issuedGuides(1, 'internal_transfer', priced, { destinationOfficeId: '2' });
    const [other] = await issuedGuides(1, 'other_transfer', [priced[0]!, { description: 'Pallet', quantity: '1', unitPriceMinor: null }]);
    for (const [guide, message] of [[internal, 'internal_transfer'], [other, 'other_transfer']] as const) {
      const answer = await invoiceOf([guide.id], guide.totalMinor);
      expect([answer.status, answer.body.code, answer.body.errors[0].path], answer.text).toEqual([422, 'invalid_invoice', 'body.dispatchGuideIds.0']);
      expect(answer.body.errors[0].message).toContain(message);
    }
  });
});
