import { expect } from 'vitest';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';

/**
 * The audit walk's fixtures for the vehicle care operations, in the shape of `fixtures.ts`
 * (the audit area's file): spread `careFixtures` into its `fixtures`. The world here names only
 * what these need, so it is a part of the walk's World.
 */
interface CareWorld {
  tenant: TestTenant;
  admin: TestMember;
  operator: TestMember;
}

let counter = 0;
const plate = () => `CU${Date.now().toString(36).slice(-4).toUpperCase()}${++counter}`.slice(0, 12);

const vehicle = async (w: CareWorld): Promise<{ id: string }> => {
  const response = await w.tenant.call(w.operator, 'POST', '/v1/fleet/vehicles', { body: { plate: plate(), label: 'Furgón cuidados' } });
  expect(response.status, response.text).toBe(201);
  return response.body;
};

const noCare = { technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: null };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

export const careFixtures = {
  putVehicleCare: {
    prepare: async (w: CareWorld) => {
      const { id } = await vehicle(w);
      return { member: w.operator, method: 'PUT', path: `/v1/fleet/vehicles/${id}/care`, body: { version: 0, ...noCare, soap: '2027-03-31' }, resourceId: (_: ApiResponse) => id, status: 200 };
    },
    // Refused inside the operation: the care record is at version 0.
    refuse: async (w: CareWorld) => {
      const { id } = await vehicle(w);
      return { member: w.operator, method: 'PUT', path: `/v1/fleet/vehicles/${id}/care`, body: { version: 3, ...noCare }, status: 409 };
    },
  },
  // An operator reports: a driver may only for the vehicle of their route of today (decisions 11).
  recordOdometer: {
    prepare: async (w: CareWorld) => {
      const { id } = await vehicle(w);
      return { member: w.operator, method: 'POST', path: `/v1/fleet/vehicles/${id}/odometer`, body: { km: 1_200, readAt: minutesAgo(5) }, resourceId: (_: ApiResponse) => id, status: 201 };
    },
    // Refused inside the operation: lower than the reading before it.
    refuse: async (w: CareWorld) => {
      const { id } = await vehicle(w);
      const first = await w.tenant.call(w.operator, 'POST', `/v1/fleet/vehicles/${id}/odometer`, { body: { km: 5_000, readAt: minutesAgo(60) } });
      expect(first.status, first.text).toBe(201);
      return { member: w.operator, method: 'POST', path: `/v1/fleet/vehicles/${id}/odometer`, body: { km: 4_000, readAt: minutesAgo(5) }, status: 422 };
    },
  },
  deleteOdometerReading: {
    prepare: async (w: CareWorld) => {
      const { id } = await vehicle(w);
      const reading = await w.tenant.call(w.operator, 'POST', `/v1/fleet/vehicles/${id}/odometer`, { body: { km: 2_999_999, readAt: minutesAgo(5) } });
      expect(reading.status, reading.text).toBe(201);
      return { member: w.admin, method: 'DELETE', path: `/v1/fleet/vehicles/${id}/odometer/readings/${reading.body.readingId}`, resourceId: (_: ApiResponse) => id, status: 204 };
    },
  },
};
