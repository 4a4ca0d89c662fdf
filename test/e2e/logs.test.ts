import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

// INFO, as in the cloud: the handlers' logger reads it when the gateway first loads them.
const stack = useLocalStack({ env: { LOG_LEVEL: 'INFO' } });

describe('logs', () => {
  it('carry request and tenant ids, never the token', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return write(chunk as string, ...(rest as []));
    }) as typeof process.stdout.write;
    try {
      await tenant.call(admin, 'PATCH', `/v1/fleet/vehicles/${randomUUID()}`, { body: { version: 1 } });
      await tenant.call(admin, 'GET', '/v1/fleet/vehicles', { headers: { authorization: `Bearer ${admin.token}x` } });
    } finally {
      process.stdout.write = write;
    }
    const logged = lines.join('');
    expect(logged).toContain(tenant.id);
    expect(logged).toMatch(/"requestId":"[0-9a-f-]{36}"/);
    expect(logged).not.toContain(admin.token.split('.')[2]);
    expect(logged).not.toContain(admin.token.split('.')[1]);
  });
});
