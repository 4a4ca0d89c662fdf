import { beforeAll, describe, expect, it } from 'vitest';
import { useLocalStack } from '../../support/stack.ts';
import { PREFIX } from '../invoicing/support.ts';
import { guideRoute, guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from './support.ts';

/** decisions 16: what the SII needs of a guide, refused before any guide is made. */
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR' } });

const priced = { variantId: null, description: 'Harina 25 kg', quantity: '2', unitPriceMinor: '18990' };
const unpriced = { ...priced, description: 'Cajas retornables', quantity: '3', unitPriceMinor: null };

describe('the SII’s checks on guide creation (decisions 16)', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;
  const world = useGuideWorld(stack);
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  const stopsWithGuides = async (routeId: string) =>
    (await tenant.call(admin, 'GET', `/v1/field/routes/${routeId}`)).body.stops.filter((s: { dispatchGuide: unknown }) => s.dispatchGuide).length;

  it('a sale needs every order’s customer and every line’s price: one 422 naming each order and field, no guide for any stop; a transfer sends a missing price as 0', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [
      { connectionId: ready.connectionId, customerId: ready.customerId, lines: [priced] },
      { connectionId: ready.connectionId, customerId: null, lines: [priced, unpriced, unpriced] },
      { connectionId: ready.connectionId, customerId: ready.customerId, lines: [unpriced] },
    ]);
    const refused = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect([refused.status, refused.body.code], refused.text).toEqual([422, 'invalid_guides']);
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([
      `orders.${orders[1].id}.customerId`,
      `orders.${orders[1].id}.lines.unitPriceMinor`,
      `orders.${orders[2].id}.lines.unitPriceMinor`,
    ]);
    expect(refused.body.errors[1].message).toContain('positions 2, 3');
    expect(await stopsWithGuides(route.id)).toBe(0);

    const transfer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'other_transfer' } });
    expect(transfer.status, transfer.text).toBe(202);
    await waitForGuides(tenant, admin, route.id, 3);
    const intent = (await tenant.call(admin, 'GET', `${PREFIX}/${transfer.body.items[2].intentId}`)).body;
    const shipping = fake.shippings(ready.token).find((s) => s.salesId === intent.correlationId)!;
    expect(fake.details(ready.token, Number(shipping.guide.id)).map((d) => [d.quantity, d.netUnitValue])).toEqual([[3, 0]]);
  });

  it('an internal transfer names an active office other than its own, and its guide names no client', async () => {
    const { route } = await guideRoute(tenant, operator, driver, [{ connectionId: ready.connectionId, customerId: ready.customerId, lines: [unpriced] }]);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ transfer: 'internal_transfer' }, 'is required'],
      [{ transfer: 'internal_transfer', destinationOfficeId: '4' }, 'not an active office'], // the fake's closed office
      [{ transfer: 'internal_transfer', destinationOfficeId: '1' }, 'another office'], // the one it issues from
      [{ transfer: 'other_transfer', destinationOfficeId: '2' }, 'only for an internal_transfer'],
    ];
    for (const [body, message] of cases) {
      const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body });
      expect([answer.status, answer.body.code, answer.body.errors?.map((e: { path: string }) => e.path)], answer.text).toEqual([422, 'invalid_guides', ['body.destinationOfficeId']]);
      expect(answer.body.errors[0].message).toContain(message);
    }
    expect(await stopsWithGuides(route.id)).toBe(0);
    const made = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'internal_transfer', destinationOfficeId: '2' } });
    expect(made.status, made.text).toBe(202);
    await waitForGuides(tenant, admin, route.id, 1);
    const intent = (await tenant.call(admin, 'GET', `${PREFIX}/${made.body.items[0].intentId}`)).body;
    expect([intent.customerId, intent.dispatch.transfer]).toEqual([null, 'internal_transfer']);
    const shipping = fake.shippings(ready.token).find((s) => s.salesId === intent.correlationId)!;
    expect(shipping.shipping_type.id).toBe('5');
    const guide = fake.documents(ready.token).find((d) => String(d.id) === String(shipping.guide.id))!;
    expect(guide.client ?? null).toBeNull();
  });

  it('bad input of both kinds is one answer naming them all', async () => {
    const { orders, route } = await guideRoute(tenant, operator, driver, [{ connectionId: ready.connectionId, customerId: null, lines: [unpriced] }]);
    const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale', destinationOfficeId: '2' } });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.destinationOfficeId', `orders.${orders[0].id}.customerId`, `orders.${orders[0].id}.lines.unitPriceMinor`]);
  });
});
