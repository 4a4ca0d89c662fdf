import { describe, expect, it } from 'vitest';
import { call, TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack({ env: { TENANT_RATE_LIMIT_PER_MINUTE: '5', REFUSED_RATE_LIMIT_PER_MINUTE: '3' } });

describe('429: a tenant over its rate', () => {
  it('answers 429 with Retry-After past the per-minute limit, for that tenant only', async () => {
    const busy = await TestTenant.create(stack());
    const quiet = await TestTenant.create(stack());
    const admin = await busy.member('admin');
    const quietAdmin = await quiet.member('admin');
    const statuses: number[] = [];
    let limited;
    // Eleven requests: even if a minute boundary falls inside the loop, two windows of five
    // cannot take them all.
    for (let i = 0; i < 11 && !limited; i++) {
      const response = await busy.call(admin, 'GET', '/v1/fleet/vehicles');
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
    expect(limited, statuses.join(',')).toBeDefined();
    expect(limited!.headers.get('content-type')).toBe('application/problem+json');
    expect(limited!.body.code).toBe('rate_limited');
    const retryAfter = Number(limited!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await quiet.call(quietAdmin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
  });

  it('counts only members: a stranger naming the tenant gets its own 429 and leaves the members their rate', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const elsewhere = await TestTenant.create(stack());
    const stranger = await elsewhere.member('admin');
    const statuses: number[] = [];
    let limited;
    // Eight refusals: two windows of three cannot take them all, whenever the minute turns.
    for (let i = 0; i < 8; i++) {
      const response = await call(stack(), 'GET', '/v1/fleet/vehicles', { token: stranger.token, tenantId: tenant.id });
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    expect(statuses.every((s) => s === 403 || s === 429), statuses.join(',')).toBe(true);
    expect(statuses.filter((s) => s === 403).length, statuses.join(',')).toBeGreaterThanOrEqual(3);
    expect(limited, statuses.join(',')).toBeDefined();
    expect(limited!.body.code).toBe('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The tenant's members still have their five requests of the minute.
    for (let i = 0; i < 5; i++) expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
    // The stranger's limit is on its refusals only: its own tenant still answers it.
    expect((await elsewhere.call(stranger, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
  });
});
