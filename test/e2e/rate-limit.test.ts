import { describe, expect, it } from 'vitest';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack({ env: { TENANT_RATE_LIMIT_PER_MINUTE: '5' } });

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
});
