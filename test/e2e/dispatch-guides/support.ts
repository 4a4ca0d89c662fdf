import { afterAll, beforeAll } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { openProviderWorld, type ProviderWorld, type ProviderWorldOptions } from '../invoicing/world.ts';
import { created, plate } from '../operations/support.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

export { FAKE_GUIDE_SETTINGS, guideConnection } from '../invoicing/world.ts';

export const guidesPath = (routeId: string) => `/v1/field/routes/${routeId}/dispatch-guides`;

export type GuideWorld = ProviderWorld<'operator' | 'driver'>;

/**
 * What every guides file starts from: the provider fake, a tenant with an admin, an operator and a
 * driver, and the fake's company connected with the guide settings. The caller stops `fake` (or calls `close`).
 */
export const openGuideWorld = (stack: LocalStack, options: Pick<ProviderWorldOptions<never>, 'timeoutMs' | 'register'> = {}): Promise<GuideWorld> =>
  openProviderWorld(stack, { ...options, members: ['operator', 'driver'], guides: true });

export interface UseGuideWorldOptions extends Pick<ProviderWorldOptions<never>, 'timeoutMs' | 'register'> {
  /** 'manual': the stack's reconciler is stopped, for files that run it themselves with chosen clocks. */
  reconciler?: 'running' | 'manual';
}

/**
 * openGuideWorld for the enclosing suite, with its own beforeAll and afterAll (which closes it):
 * the getter returns the world from the suite's first test (and its later beforeAll hooks) on.
 */
export const useGuideWorld = (stack: () => LocalStack, options: UseGuideWorldOptions = {}): (() => GuideWorld) => {
  const { reconciler, ...worldOptions } = options;
  let world: GuideWorld | undefined;
  beforeAll(async () => {
    world = await openGuideWorld(stack(), worldOptions);
    if (reconciler === 'manual') stack().invoiceReconciler.stop();
  }, 240_000);
  afterAll(async () => world?.close());
  return () => {
    if (!world) throw new Error('the guide world is not open yet');
    return world;
  };
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

/** Polls the route until every stop with a guide shows it in one of `states`; a long route's reads are heavier, so its callers poll less often. */
export const waitForGuides = async (tenant: TestTenant, member: TestMember, routeId: string, count: number, states = ['issued'], timeoutMs = WAIT_LIMIT_MS, intervalMs = 100) => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    const route = await tenant.call(member, 'GET', `/v1/field/routes/${routeId}`);
    last = route.body;
    const guides = (route.body.stops as { dispatchGuide: { localState: string } | null }[]).filter((s) => s.dispatchGuide);
    if (guides.length === count && guides.every((s) => states.includes(s.dispatchGuide!.localState))) return route.body;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`guides not settled: ${JSON.stringify(last)}`);
};

export type { LocalStack };
