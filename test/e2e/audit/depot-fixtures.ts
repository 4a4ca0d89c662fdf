import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';

/**
 * The audit walk's fixtures for depots (decisions 15), in the shape of `fixtures.ts`: spread
 * `depotFixtures` into its `fixtures`. Each call makes a depot of its own.
 */
interface DepotWorld {
  tenant: TestTenant;
  admin: TestMember;
}

const DEPOTS = '/v1/routing/depots';
const body = { name: 'Bodega Quilicura', address: { text: 'Frei Montalva 9950, Quilicura', latitude: -33.3602, longitude: -70.7271 } };

const depot = async (w: DepotWorld): Promise<{ id: string }> => {
  const response = await w.tenant.call(w.admin, 'POST', DEPOTS, { body });
  expect(response.status, response.text).toBe(201);
  return response.body;
};

export const depotFixtures = {
  createDepot: {
    prepare: async (w: DepotWorld) => ({ member: w.admin, method: 'POST', path: DEPOTS, body, resourceId: (r: ApiResponse) => r.body.id as string, status: 201 }),
  },
  updateDepot: {
    prepare: async (w: DepotWorld) => {
      const made = await depot(w);
      return { member: w.admin, method: 'PATCH', path: `${DEPOTS}/${made.id}`, body: { version: 1, name: 'Bodega Norte' }, resourceId: () => made.id, status: 200 };
    },
    // Refused by the operation: a version the depot never had.
    refuse: async (w: DepotWorld) => {
      const made = await depot(w);
      return { member: w.admin, method: 'PATCH', path: `${DEPOTS}/${made.id}`, body: { version: 9, name: 'Tarde' }, status: 409 };
    },
  },
};
