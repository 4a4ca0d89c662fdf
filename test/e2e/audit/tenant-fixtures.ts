import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';

/**
 * The audit walk's fixture for the tenant settings, in the shape of `fixtures.ts`: spread
 * `tenantFixtures` into its `fixtures`. The walk's tenant is shared, so the change is one that
 * no other fixture depends on (the tracking ETA's minutes per stop).
 */
interface TenantWorld {
  tenant: TestTenant;
  admin: TestMember;
}

const currentVersion = async (w: TenantWorld): Promise<number> => {
  const response = await w.tenant.call(w.admin, 'GET', '/v1/tenant/settings');
  expect(response.status, response.text).toBe(200);
  return response.body.version;
};

export const tenantFixtures = {
  updateTenantSettings: {
    prepare: async (w: TenantWorld) => ({
      member: w.admin,
      method: 'PATCH',
      path: '/v1/tenant/settings',
      body: { version: await currentVersion(w), trackingStopMinutes: 6 },
      resourceId: (_: ApiResponse) => w.tenant.id,
      status: 200,
    }),
    // Refused inside the operation: a version the settings never had.
    refuse: async (w: TenantWorld) => ({ member: w.admin, method: 'PATCH', path: '/v1/tenant/settings', body: { version: (await currentVersion(w)) + 50, trackingStopMinutes: 7 }, status: 409 }),
  },
};
