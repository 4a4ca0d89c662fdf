import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { byClass, parseXml, textOf } from '../../unit/routing/xml.ts';
import { makeDepot, makeOrders, plannedDay, previewOf, storePreview } from './support.ts';

const stack = useLocalStack();

let tenant: TestTenant;
let operator: TestMember;
let previewId: string;
const mapOf = (id: string) => `/v1/routing/previews/${id}/map.svg`;

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  const admin = await tenant.member('admin');
  operator = await tenant.member('operator');
  const depot = await makeDepot(tenant, admin);
  previewId = (await plannedDay(tenant, operator, depot.id, { routeCount: 3, stopsPerRoute: 4, unassignedCount: 2 })).id;
}, 240_000);

describe('GET /v1/routing/previews/{id}/map.svg', () => {
  it('answers the picture as image/svg+xml, with the preview’s routes, stops and unassigned orders, and no person in it', async () => {
    const answer = await tenant.call(operator, 'GET', mapOf(previewId));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    const root = parseXml(answer.text);
    expect(byClass(root, 'route')).toHaveLength(3);
    expect(byClass(root, 'stop')).toHaveLength(12);
    expect(byClass(byClass(root, 'unassigned-orders')[0]!, 'unassigned')).toHaveLength(2);
    const legend = textOf(byClass(root, 'legend')[0]!);
    expect(legend).toContain('Sin asignar (2)');
    expect(legend).toContain('Depósito Bodega Quilicura');
    // The orders' recipient, phone, e-mail and address (test/e2e/operations/support.ts) are nowhere.
    for (const personal of ['María', 'Pérez', '8765', 'example.cl', 'Providencia']) expect(answer.text).not.toContain(personal);
    expect(answer.text).toMatch(/<title>V1, parada 1 · PED-[^<]+ · 08:05<\/title>/);
  });

  it('speaks English with ?lang=en, and refuses another value (400 naming it)', async () => {
    expect(textOf(parseXml((await tenant.call(operator, 'GET', `${mapOf(previewId)}?lang=en`)).text))).toContain('Unassigned (2)');
    const bad = await tenant.call(operator, 'GET', `${mapOf(previewId)}?lang=fr`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('query.lang');
  });

  it('lets every role but the driver see it', async () => {
    for (const role of ['admin', 'operator', 'viewer'] as const) {
      expect((await tenant.call(await tenant.member(role), 'GET', mapOf(previewId))).status, role).toBe(200);
    }
    const driver = await tenant.call(await tenant.member('driver'), 'GET', mapOf(previewId));
    expect(driver.status).toBe(403);
    expect(driver.body.code).toBe('role_forbidden');
  });

  it('answers 404 for an unknown preview and for another tenant’s, 409 preview_not_ready for one not ready', async () => {
    const unknown = await tenant.call(operator, 'GET', mapOf(randomUUID()));
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const other = await TestTenant.create(stack());
    expect((await other.call(await other.member('viewer'), 'GET', mapOf(previewId))).status).toBe(404);
    const [order] = await makeOrders(tenant, operator, [[-33.45, -70.66]]);
    for (const state of ['queued', 'solving', 'failed'] as const) {
      const waiting = await storePreview(tenant.id, previewOf([[order!.id]], [], { state }));
      const answer = await tenant.call(operator, 'GET', mapOf(waiting.id));
      expect(answer.status, state).toBe(409);
      expect(answer.body).toMatchObject({ code: 'preview_not_ready', state });
    }
  });
});
