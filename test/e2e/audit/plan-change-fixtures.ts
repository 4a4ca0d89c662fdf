import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';
import { createOrders } from '../routes/support.ts';
import { assignedRoute, planOverRoutes } from '../routing-plans/apply-support.ts';

/**
 * The audit walk's fixtures for discarding and applying plans (decisions 17), in the shape of
 * `fixtures.ts`: spread `planChangeFixtures` into its `fixtures`. Each call makes its own orders,
 * route and plan.
 */
interface PlanWorld {
  tenant: TestTenant;
  operator: TestMember;
  driver: TestMember;
}

const planOf = async (w: PlanWorld) => {
  const [order] = await createOrders(w.tenant, w.operator, 1, 'AUDIT-DISCARD');
  const response = await w.tenant.call(w.operator, 'POST', '/v1/routing/plans', { body: { serviceDate: '2026-11-23', routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] } });
  return response.body as { id: string };
};

const changeOf = async (w: PlanWorld) => {
  const [a, b] = await createOrders(w.tenant, w.operator, 2, 'AUDIT-APPLY');
  const route = await assignedRoute(w.tenant, w.operator, w.driver, [a.id]);
  return planOverRoutes(w.tenant, w.operator, [{ route, orderIds: [b.id, a.id] }]);
};

export const planChangeFixtures = {
  discardRoutePlan: {
    prepare: async (w: PlanWorld) => {
      const plan = await planOf(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/discard`, body: { version: 1 }, resourceId: (_: ApiResponse) => plan.id, status: 200 };
    },
    refuse: async (w: PlanWorld) => {
      const plan = await planOf(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/discard`, body: { version: 5 }, status: 409 };
    },
  },
  applyRoutePlan: {
    prepare: async (w: PlanWorld) => {
      const plan = await changeOf(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/apply`, body: { version: plan.version }, resourceId: (_: ApiResponse) => plan.id, status: 200 };
    },
    refuse: async (w: PlanWorld) => {
      const plan = await changeOf(w);
      return { member: w.operator, method: 'POST', path: `/v1/routing/plans/${plan.id}/apply`, body: { version: plan.version + 3 }, status: 409 };
    },
  },
};
