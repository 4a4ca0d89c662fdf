import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditPage } from '../../../functions/audit/schemas.ts';
import { newDelivery, putNewDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { sweep, SWEEP_AUDIT_ACTION } from '../../../functions/webhooks/sweeper/handler.ts';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { orderCreatedEvent } from '../webhooks/order-event.ts';
import { newId } from '../../../shared/ids.ts';
import { table } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';

// The sweeper runs only when a test calls it, so its entries appear exactly where expected.
const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_SWEEP_SECONDS: '86400', WEBHOOK_SWEEP_GRACE_SECONDS: '0' } });
const receiver = new Receiver();
let tenant: TestTenant;
let admin: TestMember;
let operator: TestMember;

beforeAll(async () => {
  await receiver.start();
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
  operator = await tenant.member('operator');
});
afterAll(() => receiver.stop());

const audit = async (query = '', member = admin, on = tenant) => {
  const response = await on.call(member, 'GET', `/v1/audit${query}`);
  expect(response.status, response.text).toBe(200);
  return v.parse(AuditPage, response.body);
};

const vehicle = async (member: TestMember, plate: string) => {
  const created = await tenant.call(member, 'POST', '/v1/fleet/vehicles', { body: { plate, label: 'Furgón' } });
  expect(created.status, created.text).toBe(201);
  return created.body;
};

describe('GET /v1/audit', () => {
  let first: any;
  let second: any;
  beforeAll(async () => {
    first = await vehicle(operator, 'AUDL01');
    second = await vehicle(admin, 'AUDL02');
    const updated = await tenant.call(operator, 'PATCH', `/v1/fleet/vehicles/${first.id}`, { body: { version: 1, label: 'Furgón 1' } });
    expect(updated.status, updated.text).toBe(200);
  });

  it('lists the tenant’s entries newest first, in the shape of the specification', async () => {
    const page = await audit();
    expect(page.items.map((e) => [e.action, e.resourceId])).toEqual([
      ['updateVehicle', first.id],
      ['createVehicle', second.id],
      ['createVehicle', first.id],
    ]);
    expect(page.items[0]).toMatchObject({ tenantId: tenant.id, actorId: operator.id, outcome: 'succeeded' });
    expect(page.nextCursor).toBeNull();
  });

  it('filters by resource, actor and action, alone and together', async () => {
    expect((await audit(`?resourceId=${first.id}`)).items.map((e) => e.action)).toEqual(['updateVehicle', 'createVehicle']);
    expect((await audit(`?actorId=${admin.id}`)).items.map((e) => e.resourceId)).toEqual([second.id]);
    expect((await audit('?action=createVehicle')).items.map((e) => e.resourceId)).toEqual([second.id, first.id]);
    expect((await audit(`?resourceId=${first.id}&action=createVehicle`)).items).toHaveLength(1);
    expect((await audit(`?actorId=${operator.id}&action=createVehicle`)).items.map((e) => e.resourceId)).toEqual([first.id]);
    expect((await audit(`?actorId=${admin.id}&resourceId=${first.id}`)).items).toEqual([]);
    expect((await audit('?action=cancelOrder')).items).toEqual([]);
  });

  it('pages with before and limit, without and with a filter, and ends with a null cursor', async () => {
    for (const query of ['?', `?actorId=${operator.id}&`]) {
      const all = (await audit(query.slice(0, -1))).items.map((e) => e.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await audit(`${query}limit=1${cursor ? `&before=${cursor}` : ''}`);
        expect(page.items.length).toBeLessThanOrEqual(1);
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all);
    }
  });

  it('refuses bad filters and limits with 400 and changes nothing', async () => {
    for (const query of ['?limit=101', '?actorId=rosa', '?resourceId=1', '?action=DROP%20TABLE', '?before=yesterday', '?tenantId=x']) {
      const response = await tenant.call(admin, 'GET', `/v1/audit${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('is for admins only', async () => {
    for (const role of ['operator', 'driver', 'viewer'] as const) {
      const member = await tenant.member(role);
      const response = await tenant.call(member, 'GET', '/v1/audit');
      expect(response.status, role).toBe(403);
      expect(response.body.code).toBe('role_forbidden');
    }
  });

  it('never shows another tenant’s entries, not even by their resource id', async () => {
    const other = await TestTenant.create(stack(), 'Distribuidora Austral Ltda');
    const otherAdmin = await other.member('admin');
    expect((await audit('', otherAdmin, other)).items).toEqual([]);
    expect((await audit(`?resourceId=${first.id}`, otherAdmin, other)).items).toEqual([]);
    expect((await audit(`?actorId=${operator.id}`, otherAdmin, other)).items).toEqual([]);
  });

  it('leaves out entries past their 400 days before DynamoDB’s TTL removes them', async () => {
    const resourceId = newId();
    const longAgo = new Date(Date.now() - 401 * 86_400_000);
    await commit([auditWrite({ tenantId: tenant.id, actorId: operator.id, action: 'createVehicle', resourceId, requestId: newId(), now: longAgo })]);
    const recent = new Date(Date.now() - 399 * 86_400_000);
    await commit([auditWrite({ tenantId: tenant.id, actorId: operator.id, action: 'updateVehicle', resourceId, requestId: newId(), now: recent })]);
    expect((await audit(`?resourceId=${resourceId}`)).items.map((e) => e.action)).toEqual(['updateVehicle']);
  });
});

describe('entries of the webhook sweeper', () => {
  it('names the system actor, its own action, the delivery and its run', async () => {
    const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiver.url, eventTypes: ['distribution.order.created'] } });
    expect(created.status, created.text).toBe(201);
    const event = orderCreatedEvent(tenant.id, { reference: 'PED-1001' }).event;
    // A delivery whose queue message was lost: overdue, so the sweeper resends it.
    const record = newDelivery(event, created.body.endpoint.id, new Date(Date.now() - 5_000));
    await table().send(new PutCommand(putNewDelivery(record).item.Put!));
    const runId = newId();
    expect(await sweep(new Date(), runId)).toBe(1);

    const page = await audit(`?actorId=${SYSTEM_ACTOR_ID}`);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ actorId: SYSTEM_ACTOR_ID, action: SWEEP_AUDIT_ACTION, resourceId: record.id, requestId: runId, tenantId: tenant.id, outcome: 'succeeded' });
    expect((await audit(`?resourceId=${record.id}`)).items).toHaveLength(1);
    await receiver.waitFor(1);
  });
});
