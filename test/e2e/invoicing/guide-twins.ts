import type { TestMember, TestTenant } from '../../support/api.ts';
import { created, plate } from '../operations/support.ts';

/**
 * A route of `count` stops whose orders' goods and shipping target are identical (only `place`,
 * the comuna, differs from other routes'): their guides' shippings are alike in every field the
 * provider answers, which a look-up cannot tell apart (docs/guides-exactly-once.md).
 */
export const twinRoute = async (
  tenant: TestTenant,
  operator: TestMember,
  driver: TestMember,
  goods: { connectionId: string; customerId: string | null },
  count: number,
  place: string,
) => {
  const orders = [];
  for (let i = 0; i < count; i++) {
    const body = {
      reference: `GF-${place}-${i}`,
      recipient: { name: 'Recibe Bodega' },
      address: { text: 'San Pablo 3000', latitude: -33.44 + i / 1000, longitude: -70.68, municipality: place, city: 'Santiago' },
      serviceDate: '2026-11-23',
      ...goods,
      lines: [
        { variantId: null, description: 'Harina 25 kg', quantity: '2', unitPriceMinor: '18990' },
        { variantId: null, description: 'Aceite 1 L', quantity: 0.5, unitPriceMinor: '2990' },
      ],
    };
    orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body })));
  }
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }] } }));
  created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  const body = { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega Quilicura', vehicle: { plate: plate(), label: 'Camión 3/4' } };
  return created(await tenant.call(operator, 'POST', '/v1/field/routes', { body })) as { id: string; stops: { id: string }[] };
};
