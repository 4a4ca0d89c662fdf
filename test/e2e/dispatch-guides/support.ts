import { expect } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startFakeProviderEnv } from '../../support/provider-env.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { RUT } from '../integrations/support.ts';
import { FAKE_SETTINGS, connectFake } from '../invoicing/provider-fake.ts';
import { created, plate } from '../operations/support.ts';

/** The fake's guide type (8: codeSii 52, active) and shipping types (ids equal their codeSii 1, 5, 6). */
export const FAKE_GUIDE_SETTINGS = {
  ...FAKE_SETTINGS,
  documentTypeIds: { ...FAKE_SETTINGS.documentTypeIds, dispatchGuide: '8' },
  shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' },
};

export const guidesPath = (routeId: string) => `/v1/field/routes/${routeId}/dispatch-guides`;

/** A provider-chile-v1 connection of the fake's company with the guide settings and a customer (client 2). */
export const guideConnection = async (fake: ProviderFake, tenant: TestTenant, admin: TestMember, company: { clientCode: string; clientName: string }) => {
  const ready = await connectFake(fake, tenant, admin, company);
  const settings = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${ready.connectionId}/issue-settings`, { body: { version: 2, ...FAKE_GUIDE_SETTINGS } });
  expect(settings.status, settings.text).toBe(200);
  return ready;
};

export interface GuideWorld {
  fake: ProviderFake;
  tenant: TestTenant;
  admin: TestMember;
  operator: TestMember;
  driver: TestMember;
  ready: Awaited<ReturnType<typeof guideConnection>>;
}

/**
 * What every guides file starts from: the provider fake, a tenant with an admin, an operator and a
 * driver, and the fake's company connected with the guide settings. The caller stops `fake`.
 */
export const openGuideWorld = async (stack: LocalStack): Promise<GuideWorld> => {
  const fake = await startFakeProviderEnv();
  const tenant = await TestTenant.create(stack);
  const [admin, operator, driver] = await Promise.all([tenant.member('admin'), tenant.member('operator'), tenant.member('driver')]);
  const ready = await guideConnection(fake, tenant, admin, { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' });
  return { fake, tenant, admin, operator, driver, ready };
};

export interface GoodsSpec {
  /** null: an order without goods. */
  connectionId: string | null;
  customerId?: string | null;
  lines?: { description: string; quantity: string | number; unitPriceMinor: string | null }[];
  municipality?: string;
}

const line = { variantId: null, description: 'Harina 25 kg', quantity: '2', unitPriceMinor: '18990' };

/** Orders (with goods or not), an approved plan of one route, and that route assigned to the driver. */
export const guideRoute = async (tenant: TestTenant, operator: TestMember, driver: TestMember, specs: GoodsSpec[], serviceDate = '2026-11-23') => {
  const orders = [];
  for (const [i, spec] of specs.entries()) {
    const goods = spec.connectionId
      ? { connectionId: spec.connectionId, customerId: spec.customerId ?? null, lines: spec.lines ?? [line, { ...line, description: 'Aceite 1 L', quantity: 0.5, unitPriceMinor: '2490' }] }
      : {};
    const body = {
      reference: `GD-${Date.now()}-${i}`,
      recipient: { name: `Recibe ${i}` },
      address: { text: `San Pablo ${3000 + i}`, latitude: -33.44 + i / 1000, longitude: -70.68, ...(spec.municipality ? { municipality: spec.municipality, city: 'Santiago' } : {}) },
      serviceDate,
      ...goods,
    };
    orders.push(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body })));
  }
  const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }] } }));
  created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  const route = created(
    await tenant.call(operator, 'POST', '/v1/field/routes', {
      body: { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate, depotName: 'Bodega Quilicura', vehicle: { plate: plate(), label: 'Camión 3/4' } },
    }),
  );
  return { orders, route: route as { id: string; version: number; stops: { id: string; orderId: string; sequence: number }[] } };
};

/** Polls the route until every stop with a guide shows it in one of `states`. */
export const waitForGuides = async (tenant: TestTenant, member: TestMember, routeId: string, count: number, states = ['issued'], timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const route = await tenant.call(member, 'GET', `/v1/field/routes/${routeId}`);
    last = route.body;
    const guides = (route.body.stops as { dispatchGuide: { localState: string } | null }[]).filter((s) => s.dispatchGuide);
    if (guides.length === count && guides.every((s) => states.includes(s.dispatchGuide!.localState))) return route.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`guides not settled: ${JSON.stringify(last)}`);
};

export type { LocalStack };
