import { beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack({ env: { WEBHOOK_MAX_ACTIVE_ENDPOINTS: '3' } });
const eventTypes = ['distribution.order.created'];

const newTenant = async (): Promise<{ tenant: TestTenant; admin: TestMember }> => {
  const tenant = await TestTenant.create(stack());
  return { tenant, admin: await tenant.member('admin', { mfa: true }) };
};
const create = (t: { tenant: TestTenant; admin: TestMember }, url: string) => t.tenant.call(t.admin, 'POST', '/v1/webhooks/endpoints', { body: { url, eventTypes } });
const patch = (t: { tenant: TestTenant; admin: TestMember }, id: string, body: Record<string, unknown>) => t.tenant.call(t.admin, 'PATCH', `/v1/webhooks/endpoints/${id}`, { body });
const activeCount = async (t: { tenant: TestTenant; admin: TestMember }) =>
  (await t.tenant.call(t.admin, 'GET', '/v1/webhooks/endpoints')).body.items.filter((e: { state: string }) => e.state === 'active').length;

describe('one active destination per URL', () => {
  let t: Awaited<ReturnType<typeof newTenant>>;
  beforeAll(async () => {
    t = await newTenant();
  });

  it('refuses a second active destination with the same normalised URL, and frees the URL when the first is disabled', async () => {
    const first = await create(t, 'https://hooks.acme-receiver.cl/dup');
    expect(first.status).toBe(201);
    for (const same of ['https://hooks.acme-receiver.cl/dup', 'HTTPS://Hooks.ACME-receiver.cl:443/dup', 'https://hooks.acme-receiver.cl/dup#part']) {
      const refused = await create(t, same);
      expect(refused.status, same).toBe(422);
      expect(refused.body.code).toBe('duplicate_destination');
      expect(refused.body.errors[0].path).toBe('body.url');
    }
    expect((await create(t, 'https://hooks.acme-receiver.cl/dup?v=2')).status).toBe(201);

    expect((await patch(t, first.body.endpoint.id, { version: 1, active: false })).status).toBe(200);
    const second = await create(t, 'https://hooks.acme-receiver.cl/dup');
    expect(second.status).toBe(201);
    const back = await patch(t, first.body.endpoint.id, { version: 2, active: true });
    expect(back.status).toBe(422);
    expect(back.body.code).toBe('duplicate_destination');
  });

  it('lets exactly one of five concurrent creates with the same URL through', async () => {
    const other = await newTenant();
    const answers = await Promise.all(Array.from({ length: 5 }, () => create(other, 'https://hooks.acme-receiver.cl/race')));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 201)) expect([409, 422]).toContain(refused.status);
    expect(await activeCount(other)).toBe(1);
  });
});

describe('active destinations per tenant (WEBHOOK_MAX_ACTIVE_ENDPOINTS=3 here, 100 by default)', () => {
  it('answers 422 over the cap, on create and on reactivation; disabling makes room', async () => {
    const t = await newTenant();
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await create(t, `https://hooks.acme-receiver.cl/cap-${i}`)).body.endpoint);
    const over = await create(t, 'https://hooks.acme-receiver.cl/cap-3');
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('destination_limit_reached');

    expect((await patch(t, made[0].id, { version: 1, active: false })).status).toBe(200);
    expect((await create(t, 'https://hooks.acme-receiver.cl/cap-3')).status).toBe(201);
    const reactivate = await patch(t, made[0].id, { version: 2, active: true });
    expect(reactivate.status).toBe(422);
    expect(reactivate.body.code).toBe('destination_limit_reached');
    expect((await t.tenant.call(t.admin, 'GET', `/v1/webhooks/endpoints/${made[0].id}`)).body).toMatchObject({ state: 'disabled', version: 2 });
    expect(await activeCount(t)).toBe(3);
  });

  it('holds under concurrent creates', async () => {
    const t = await newTenant();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(t, `https://hooks.acme-receiver.cl/burst-${i}`)));
    expect(answers.filter((a) => a.status === 201).length).toBeLessThanOrEqual(3);
    // Requests that lost a conflict try again, as a client would: the cap still holds.
    for (const [i, answer] of answers.entries()) if (answer.status === 409) await create(t, `https://hooks.acme-receiver.cl/burst-${i}`);
    expect(await activeCount(t)).toBe(3);
  });
});
