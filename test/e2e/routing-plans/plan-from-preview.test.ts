import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPlanRecord } from '../../../functions/routing/plans.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created } from '../operations/support.ts';
import { makeOrders, plannedDay, previewOf, SERVICE_DATE, storePreview } from './support.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1' } });
const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

let tenant: TestTenant;
let operator: TestMember;

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  operator = await tenant.member('operator');
});

const points = (n: number, base = 0): [number, number][] => Array.from({ length: n }, (_, i) => [-33.4 - (base + i) * 0.01, -70.6 - (base + i) * 0.005]);

/** Five real orders; a ready preview of two routes (2 and 2 stops) and one unassigned. */
const readyPreview = async (options: { createdAt?: string } = {}) => {
  const orders = await makeOrders(tenant, operator, points(5));
  const ids = orders.map((o) => o.id);
  const preview = await storePreview(tenant.id, previewOf([[ids[2], ids[0]], [ids[1], ids[3]]], [ids[4]], options));
  return { orders, ids, preview };
};

const planFrom = (previewId: string, idempotencyKey?: string) => tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId }, idempotencyKey });

describe('a plan from a preview', () => {
  it('takes the preview’s routes in stop order, its unassigned orders and each stop’s planned arrival', async () => {
    const { ids, preview } = await readyPreview();
    const plan = created(await planFrom(preview.id));
    expect(plan).toMatchObject({
      serviceDate: SERVICE_DATE,
      state: 'preview',
      previewId: preview.id,
      routes: [
        { vehicleRouteId: 'V1', orderIds: [ids[2], ids[0]] },
        { vehicleRouteId: 'V2', orderIds: [ids[1], ids[3]] },
      ],
      unassignedOrderIds: [ids[4]],
      version: 1,
      approvedAt: null,
    });
    expect((await tenant.call(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body).toEqual(plan);
    const record = await runAs(OPERATOR, () => getPlanRecord(tenant.id, plan.id));
    const stops = preview.routes.flatMap((r) => r.stops);
    expect(record.plannedArrivals).toEqual(Object.fromEntries(stops.map((s) => [s.orderId, s.arrivalAt])));
    expect(Object.keys(record.plannedArrivals)).not.toContain(ids[4]);
  });

  it('replays the same request with the same key, and gives no second plan with another key', async () => {
    const { preview } = await readyPreview();
    const key = randomUUID();
    const first = created(await planFrom(preview.id, key));
    const again = await planFrom(preview.id, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.id);
    const second = await planFrom(preview.id);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'preview_already_planned', planId: first.id });
  });

  it('gives exactly one plan to requests racing with different keys', async () => {
    const { preview } = await readyPreview();
    const answers = await Promise.all(Array.from({ length: 6 }, () => planFrom(preview.id)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, answers.map((a) => a.text).join('\n')).toEqual([201, 409, 409, 409, 409, 409]);
    for (const lost of answers.filter((a) => a.status === 409)) expect(lost.body.code).toBe('preview_already_planned');
  }, 240_000);

  it('answers 409 preview_not_ready for a preview that is queued, solving or failed, and plans nothing', async () => {
    for (const state of ['queued', 'solving', 'failed'] as const) {
      const preview = await storePreview(tenant.id, previewOf([], [], { state }));
      const answer = await planFrom(preview.id);
      expect(answer.status, state).toBe(409);
      expect(answer.body).toMatchObject({ code: 'preview_not_ready', state });
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('answers 409 preview_outdated when an order left pending, or changed after the preview was asked', async () => {
    const cancelled = await readyPreview();
    expect((await tenant.call(operator, 'POST', `/v1/distribution/orders/${cancelled.ids[4]}/cancel`, { body: { version: 1 } })).status).toBe(200);
    const answer = await planFrom(cancelled.preview.id);
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ code: 'preview_outdated', orderIds: [cancelled.ids[4]] });

    // Orders made after the preview was asked are, for it, changed since.
    const stale = await readyPreview({ createdAt: new Date(Date.now() - 3_600_000).toISOString() });
    const late = await planFrom(stale.preview.id);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('preview_outdated');
    expect([...late.body.orderIds].sort()).toEqual([...stale.ids].sort());

    // Neither gave a plan: the preview is still free once its orders are fine again.
    const fresh = await readyPreview();
    created(await planFrom(fresh.preview.id));
  });

  it('answers 404 for an unknown preview and for another tenant’s', async () => {
    expect((await planFrom(randomUUID())).status).toBe(404);
    const { preview } = await readyPreview();
    const other = await TestTenant.create(stack());
    const stranger = await other.member('admin');
    const answer = await other.call(stranger, 'POST', '/v1/routing/plans', { body: { previewId: preview.id } });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
  });

  it('refuses a body that names a preview and routes, naming the field, and stores nothing', async () => {
    const { ids, preview } = await readyPreview();
    const mixed = await tenant.call(operator, 'POST', '/v1/routing/plans', {
      body: { previewId: preview.id, serviceDate: SERVICE_DATE, routes: [{ orderIds: [ids[0]] }] },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.code).toBe('validation_failed');
    // valibot's strict object names the first field too many.
    expect(mixed.body.errors).toEqual([{ path: 'body.serviceDate', message: 'a plan from a preview takes previewId alone' }]);
    const badId = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { previewId: 'V1' } });
    expect(badId.status).toBe(400);
    expect(badId.body.errors).toEqual([{ path: 'body.previewId', message: expect.stringContaining('route preview') }]);
    // A client-computed plan still validates as before.
    const missing = await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { routes: [{ orderIds: [ids[0]] }] } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.serviceDate']);
    // The refused body claimed nothing: the preview still gives its plan.
    created(await planFrom(preview.id));
  });

  it('is approved with routing.plan.approved carrying the previewId, routeCount and unassignedCount', async () => {
    const admin = await tenant.member('admin', { mfa: true });
    const endpoint = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiver.url, eventTypes: ['routing.plan.approved'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { preview } = await readyPreview();
    const plan = created(await planFrom(preview.id));
    const approved = created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { body: { version: 1 } }), 200);
    expect(approved).toMatchObject({ state: 'approved', previewId: preview.id, version: 2 });

    const webhook = new Webhook(endpoint.body.secret.value);
    const deadline = Date.now() + WAIT_LIMIT_MS;
    let data: Record<string, unknown> | undefined;
    while (!data && Date.now() < deadline) {
      for (const request of receiver.received) {
        const envelope = webhook.verify(request.body, request.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
        if (envelope.type === 'routing.plan.approved' && envelope.data.routePlanId === plan.id) data = envelope.data;
      }
      if (!data) await new Promise((r) => setTimeout(r, 100));
    }
    expect(data).toEqual({ routePlanId: plan.id, previewId: preview.id, routeCount: 2, unassignedCount: 1 });
    // The planned arrivals stay through approval (route stops show them).
    const record = await runAs(OPERATOR, () => getPlanRecord(tenant.id, plan.id));
    expect(Object.keys(record.plannedArrivals)).toHaveLength(4);
  }, 240_000);

  it('holds a preview of 1,000 orders in one plan item, with their planned arrivals, and replays it', async () => {
    const preview = await plannedDay(tenant, operator, randomUUID(), { routeCount: 40, stopsPerRoute: 25, unassignedCount: 0, concurrency: 8 });
    const key = randomUUID();
    const plan = created(await planFrom(preview.id, key));
    expect(plan.routes).toHaveLength(40);
    expect(plan.routes.flatMap((r: { orderIds: string[] }) => r.orderIds)).toHaveLength(1000);
    expect((await planFrom(preview.id, key)).body).toEqual(plan);
    const record = await runAs(OPERATOR, () => getPlanRecord(tenant.id, plan.id));
    expect(Object.keys(record.plannedArrivals)).toHaveLength(1000);
  }, 180_000);
});
