import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';
import { connectSandbox } from '../integrations/support.ts';
import { guideLine, seedGuide } from '../invoicing/guides-seed.ts';
import { SANDBOX_SETTINGS } from '../invoicing/support.ts';

/**
 * The audit walk's fixture for the dispatch guides of a route (issue 17), in the shape of
 * `fixtures.ts`: spread `guideFixtures` into its `fixtures`. The guides the worker then issues
 * write the system's entries (issueDispatchGuide), which the walk leaves to the job's tests.
 */
interface GuideWorld {
  tenant: TestTenant;
  admin: TestMember;
  operator: TestMember;
  driver: TestMember;
}

const ok = (response: ApiResponse, status: number) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

/** One sandbox connection with the guide settings per tenant (a tenant may hold 20). */
const connections = new Map<string, Promise<string>>();
const guideConnection = (w: GuideWorld): Promise<string> => {
  if (!connections.has(w.tenant.id)) {
    connections.set(
      w.tenant.id,
      (async () => {
        const { connection } = await connectSandbox(w.tenant, w.admin);
        const settings = { ...SANDBOX_SETTINGS, documentTypeIds: { ...SANDBOX_SETTINGS.documentTypeIds, dispatchGuide: '7' }, shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' } };
        ok(await w.tenant.call(w.admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: { version: 1, ...settings } }), 200);
        return connection.id as string;
      })(),
    );
  }
  return connections.get(w.tenant.id)!;
};

let counter = 0;
const routeWithGoods = async (w: GuideWorld): Promise<{ id: string }> => {
  const serviceDate = '2026-11-23';
  const connectionId = await guideConnection(w);
  const order = ok(
    await w.tenant.call(w.operator, 'POST', '/v1/distribution/orders', {
      body: {
        reference: `GUIDE-${Date.now()}-${++counter}`,
        recipient: { name: 'Bodega Central' },
        address: { text: 'Camino Lo Boza 120, Pudahuel', latitude: -33.43, longitude: -70.75 },
        serviceDate,
        connectionId,
        lines: [{ variantId: null, description: 'Harina 25 kg', quantity: 4, unitPriceMinor: null }],
      },
    }),
    201,
  );
  const plan = ok(await w.tenant.call(w.operator, 'POST', '/v1/routing/plans', { body: { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] } }), 201);
  ok(await w.tenant.call(w.operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
  const plate = `GD${Date.now().toString(36).slice(-4).toUpperCase()}${counter}`.slice(0, 8);
  return ok(
    await w.tenant.call(w.operator, 'POST', '/v1/field/routes', {
      body: { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: w.driver.id, serviceDate, depotName: 'Bodega Quilicura', vehicle: { plate, label: 'Camión guías' } },
    }),
    201,
  );
};

export const guideFixtures = {
  createRouteDispatchGuides: {
    prepare: async (w: GuideWorld) => {
      const route = await routeWithGoods(w);
      // Not a sale: its order has no customer and no prices (decisions 16 would refuse it, 422).
      return { member: w.admin, method: 'POST', path: `/v1/field/routes/${route.id}/dispatch-guides`, body: { transfer: 'other_transfer' }, resourceId: () => route.id, status: 202 };
    },
    // A started route makes no guides: refused by the operation, nothing written.
    refuse: async (w: GuideWorld) => {
      const route = await routeWithGoods(w);
      ok(await w.tenant.call(w.driver, 'POST', `/v1/field/routes/${route.id}/start`), 200);
      return { member: w.admin, method: 'POST', path: `/v1/field/routes/${route.id}/dispatch-guides`, body: { transfer: 'sale' }, status: 409 };
    },
  },
  // A guide held unknown (its look-up met two shippings it could not tell apart), written as the
  // reconciler leaves it; the admin says none exists and it goes back to approved.
  resolveInvoiceIntent: {
    prepare: async (w: GuideWorld) => {
      const held = await heldGuide(w, 'unknown');
      return { member: w.admin, method: 'POST', path: `/v1/customer-finance/invoice-intents/${held.id}/resolve`, body: { externalDocumentId: null }, resourceId: () => held.id, status: 200 };
    },
    // An issued guide is not for an admin to settle: refused by the operation, nothing written.
    refuse: async (w: GuideWorld) => {
      const issued = await heldGuide(w, 'issued');
      return { member: w.admin, method: 'POST', path: `/v1/customer-finance/invoice-intents/${issued.id}/resolve`, body: { externalDocumentId: null }, status: 409 };
    },
  },
};

const heldGuide = async (w: GuideWorld, localState: 'unknown' | 'issued') => {
  const connectionId = await guideConnection(w);
  const at = new Date().toISOString();
  const submission = { documentTypeId: '7', officeId: '1', emissionDate: Date.parse(`${at.slice(0, 10)}T00:00:00Z`) / 1000, firstSubmittedAt: at, submittedAt: at };
  return seedGuide(w.tenant.id, connectionId, null, [guideLine('harina', '1', null)], {
    transfer: 'other_transfer',
    submission,
    // Held as the look-up leaves it: ended ambiguous, so "none exists" is accepted before the answer window ends (decisions 19).
    ...(localState === 'unknown'
      ? { localState, providerState: 'unknown', taxState: 'not_submitted', externalDocumentId: null, documentNumber: null, shippingLookup: { shippingTypeId: '6', progress: null, ambiguous: ['901', '902'] } }
      : {}),
  });
};
