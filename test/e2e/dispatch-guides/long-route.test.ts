import { beforeAll, describe, expect, it } from 'vitest';
import { getOrderRecord } from '../../../functions/orders/records.ts';
import { seedOrders } from '../../support/seed-orders.ts';
import { useLocalStack } from '../../support/stack.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';
import { created } from '../operations/support.ts';
import { approvedPlan, assignBody, SERVICE_DATE } from '../routes/support.ts';
import { guidesPath, useGuideWorld, waitForGuides, type GuideWorld } from './support.ts';

// The spacing of provider calls is not under test here (bench:guides measures it): 300 guides at 110 ms a call take a minute.
const stack = useLocalStack({ env: { LOG_LEVEL: 'ERROR', IMPORT_PROVIDER_MIN_INTERVAL_MS: '0' } });

const STOPS = 300;
const lines = [{ variantId: null, description: 'Harina 25 kg', quantity: '2', unitPriceMinor: '18990' }];

describe('dispatch guides of a route of 300 stops', () => {
  let { fake, tenant, admin, operator, driver, ready } = {} as GuideWorld;
  const world = useGuideWorld(stack);
  beforeAll(() => void ({ fake, tenant, admin, operator, driver, ready } = world()));

  it('makes every stop’s guide in one request and the worker issues all 300 at the provider, once each', async () => {
    // One order through the API (its goods resolved by the create); the other 299 stored as the create stores them, with the same goods.
    const first = created(
      await tenant.call(operator, 'POST', '/v1/distribution/orders', {
        body: {
          reference: 'GL-0',
          recipient: { name: 'Almacén 0' },
          address: { text: 'San Pablo 3000', latitude: -33.44, longitude: -70.68, municipality: 'Quinta Normal', city: 'Santiago' },
          serviceDate: SERVICE_DATE,
          connectionId: ready.connectionId,
          customerId: ready.customerId,
          lines,
        },
      }),
    );
    const goodsOf = await getOrderRecord(tenant.id, first.id);
    const points = Array.from({ length: STOPS - 1 }, (_, i): [number, number] => [-33.44 + (i + 1) / 10_000, -70.68]);
    const orders = [first, ...(await seedOrders(tenant.id, points, SERVICE_DATE, 'GL', { goodsOf }))];
    const plan = await approvedPlan(tenant, operator, [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }]);
    const route = created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver) }));
    expect(route.stops).toHaveLength(STOPS);

    const answer = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect(answer.status, answer.text).toBe(202);
    expect(answer.body.items.map((i: { stopId: string }) => i.stopId)).toEqual(route.stops.map((s: { id: string }) => s.id));
    expect(new Set(answer.body.items.map((i: { intentId: string }) => i.intentId)).size).toBe(STOPS);

    // 300 issues at the provider (each look a read of 300 stops and their guides: once a second): about a minute on a quiet machine, ten at load 35 (issue 37).
    const issued = await waitForGuides(tenant, admin, route.id, STOPS, ['issued'], 10 * WAIT_LIMIT_MS, 1_000);
    expect(new Set(issued.stops.map((s: { dispatchGuide: { number: string } }) => s.dispatchGuide.number)).size).toBe(STOPS);
    const salesIds = fake.shippings(ready.token).map((s) => s.salesId);
    expect(salesIds).toHaveLength(STOPS);
    expect(new Set(salesIds).size).toBe(STOPS);
    // Asked again: every stop has its live guide, nothing new is made.
    const again = await tenant.call(admin, 'POST', guidesPath(route.id), { body: { transfer: 'sale' } });
    expect(again.status, again.text).toBe(202);
    expect(again.body.items).toEqual(answer.body.items);
    expect(fake.shippings(ready.token)).toHaveLength(STOPS);
  }, 15 * WAIT_LIMIT_MS);
});
