import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unplannedPendingOrderIds } from '../../../functions/routing/previews/day-orders.ts';
import { TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created } from '../operations/support.ts';
import { assignBody, createOrders, SERVICE_DATE } from '../routes/support.ts';
import { previewOf, storePreview } from './support.ts';

const stack = useLocalStack();

const world = async () => {
  const tenant = await TestTenant.create(stack());
  return { tenant, admin: await tenant.member('admin'), operator: await tenant.member('operator'), driver: await tenant.member('driver'), viewer: await tenant.member('viewer') };
};

const discard = (tenant: TestTenant, member: any, planId: string, version: number, idempotencyKey: string = randomUUID()) =>
  tenant.call(member, 'POST', `/v1/routing/plans/${planId}/discard`, { body: { version }, idempotencyKey });

describe('POST /v1/routing/plans/{id}/discard (decisions 17)', () => {
  it('discards a plan: its orders are free for a whole-day preview, its preview gives a new plan; once only', async () => {
    const { tenant, operator, viewer } = await world();
    const orders = await createOrders(tenant, operator, 3, 'DISCARD');
    const preview = await storePreview(tenant.id, previewOf([[orders[0].id, orders[1].id]], [orders[2].id]));
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: preview.id } }));
    expect(await unplannedPendingOrderIds(tenant.id, SERVICE_DATE)).toEqual([orders[2].id]);

    expect((await discard(tenant, viewer, plan.id, 1)).status).toBe(403);
    const stale = await discard(tenant, operator, plan.id, 7);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('version_mismatch');

    const key = randomUUID();
    const answer = await discard(tenant, operator, plan.id, 1, key);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ id: plan.id, state: 'discarded', version: 2, discardedAt: expect.any(String) });
    expect((await discard(tenant, operator, plan.id, 1, key)).headers.get('idempotent-replayed')).toBe('true');
    const again = await discard(tenant, operator, plan.id, 2);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('invalid_state');

    expect(new Set(await unplannedPendingOrderIds(tenant.id, SERVICE_DATE))).toEqual(new Set(orders.map((o) => o.id)));
    const approve = await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 2 } });
    expect(approve.status).toBe(409);
    const replanned = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: preview.id } }));
    expect(replanned.id).not.toBe(plan.id);

    const audit = await tenant.call(await tenant.member('admin'), 'GET', `/v1/audit?resourceId=${plan.id}&action=discardRoutePlan`);
    expect(audit.body.items).toHaveLength(1);
  });

  it('refuses a plan with an assigned route (409 plan_in_use naming it) until that route is cancelled', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 4, 'INUSE');
    const plan = created(
      await tenant.call(operator, 'POST', '/v1/routing/plans', {
        body: { serviceDate: SERVICE_DATE, routes: [{ vehicleRouteId: 'V1', orderIds: [orders[0].id, orders[1].id] }, { vehicleRouteId: 'V2', orderIds: [orders[2].id] }] },
      }),
    );
    const approved = created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
    const route = created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V1') }));
    const refused = await discard(tenant, operator, plan.id, approved.version);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'plan_in_use', vehicleRouteIds: ['V1'] });
    expect((await tenant.call(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body.state).toBe('approved');

    created(await tenant.call(operator, 'POST', `/v1/field/routes/${route.id}/cancel`, { body: { version: route.version } }), 200);
    // The cancelled route's orders are free for a whole-day preview already; V2's, never assigned, are the plan's.
    expect(new Set(await unplannedPendingOrderIds(tenant.id, SERVICE_DATE))).toEqual(new Set([orders[0].id, orders[1].id, orders[3].id]));
    const answer = await discard(tenant, operator, plan.id, approved.version);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.state).toBe('discarded');
    // A discarded plan's routes are assigned no more.
    const late = await tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V2') });
    expect(late.status).toBe(409);
    expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[2].id}`)).body.state).toBe('pending');
  });

  it('a discard and an assignment racing: either the plan is discarded and nothing assigned, or the route is assigned and the discard refused', async () => {
    const { tenant, operator, driver } = await world();
    const orders = await createOrders(tenant, operator, 2, 'RACE');
    const plan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: SERVICE_DATE, routes: [{ vehicleRouteId: 'V1', orderIds: orders.map((o) => o.id) }] } }));
    const approved = created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
    const [assigned, discarded] = await Promise.all([
      tenant.call(operator, 'POST', '/v1/field/routes', { body: assignBody(plan.id, driver, 'V1'), idempotencyKey: randomUUID() }),
      discard(tenant, operator, plan.id, approved.version),
    ]);
    const state = (await tenant.call(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body.state;
    if (assigned.status === 201) {
      expect(discarded.status).toBe(409);
      expect(state).toBe('approved');
    } else {
      expect(discarded.status).toBe(200);
      expect(state).toBe('discarded');
      expect((await tenant.call(operator, 'GET', `/v1/distribution/orders/${orders[0].id}`)).body.state).toBe('pending');
    }
  });

  it('bad input is 400 naming the field', async () => {
    const { tenant, operator } = await world();
    for (const [body, path] of [
      [{}, 'body.version'],
      [{ version: 0 }, 'body.version'],
      [{ version: 1, reason: 'x' }, 'body.reason'],
    ] as const) {
      const response = await tenant.call(operator, 'POST', `/v1/routing/plans/${randomUUID()}/discard`, { body, idempotencyKey: randomUUID() });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((e: any) => e.path)).toContain(path);
    }
  });
});
