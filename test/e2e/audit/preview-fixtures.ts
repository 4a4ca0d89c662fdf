import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';

/**
 * The audit walk's fixtures for route previews (decisions 15), in the shape of `fixtures.ts`:
 * spread `previewFixtures` into its `fixtures`. Each call asks for a preview of a depot, a
 * vehicle and an order of its own. The worker's entries (system actor) are the job's, held by
 * test/e2e/previews/lifecycle.test.ts.
 */
interface PreviewWorld {
  tenant: TestTenant;
  admin: TestMember;
  operator: TestMember;
}

const made = async (w: PreviewWorld, path: string, body: unknown): Promise<{ id: string }> => {
  const response = await w.tenant.call(w.admin, 'POST', path, { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
};

const previewBody = async (w: PreviewWorld, depotId?: string) => {
  const depot = depotId ?? (await made(w, '/v1/routing/depots', { name: 'Bodega Renca', address: { text: 'Av. Condell 300, Renca', latitude: -33.405, longitude: -70.73 } })).id;
  const vehicle = await made(w, '/v1/fleet/vehicles', { plate: `PV${randomUUID().slice(0, 4).toUpperCase()}`, label: 'Furgón' });
  const order = await made(w, '/v1/distribution/orders', {
    reference: `PRV-${randomUUID().slice(0, 8)}`,
    recipient: { name: 'Rosa Díaz', phone: '+56 9 2222 3333', email: 'rosa@example.cl' },
    address: { text: 'Av. Dorsal 1000, Conchalí', latitude: -33.39, longitude: -70.67 },
    serviceDate: '2026-11-23',
  });
  return { serviceDate: '2026-11-23', depotId: depot, orderIds: [order.id], vehicles: [{ vehicleId: vehicle.id, shiftStart: '08:00', shiftEnd: '18:00' }], timeLimitSeconds: 1 };
};

export const previewFixtures = {
  createRoutePreview: {
    prepare: async (w: PreviewWorld) => ({ member: w.operator, method: 'POST', path: '/v1/routing/previews', body: await previewBody(w), resourceId: (r: ApiResponse) => r.body.id as string, status: 202 }),
    // Refused by the operation: a depot the tenant does not have.
    refuse: async (w: PreviewWorld) => ({ member: w.operator, method: 'POST', path: '/v1/routing/previews', body: await previewBody(w, randomUUID()), status: 422 }),
  },
};
