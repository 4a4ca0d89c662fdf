import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { resetTableClient } from '../../shared/table/client.ts';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();

describe('503: the table cannot answer', () => {
  it('answers 503 problem+json with Retry-After, and recovers when the table is back', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
    const endpoint = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${await freePort()}`;
    resetTableClient();
    try {
      const down = await tenant.call(admin, 'POST', '/v1/assistant/questions', { body: { text: 'dónde está el camión' } });
      expect(down.status, down.text).toBe(503);
      expect(down.headers.get('content-type')).toBe('application/problem+json');
      expect(down.body.code).toBe('dependency_unavailable');
      expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      process.env.DYNAMODB_ENDPOINT = endpoint;
      resetTableClient();
    }
    expect((await tenant.call(admin, 'GET', '/v1/fleet/vehicles')).status).toBe(200);
  });
});
