import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { startLocalStack } from '../../infra/local/stack.ts';
import { call, TestTenant } from '../support/api.ts';

describe('the local stack with a data folder', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'local-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the table, the issuer key and the stream positions across a restart', async () => {
    // The same port both times, as `npm start` on one PORT: the issuer URL names it.
    const port = await freePort();
    const first = await startLocalStack({ port, dataDir, tableName: 'delivery-ops' });
    let tenantId: string;
    let token: string;
    let vehicleId: string;
    try {
      const tenant = await TestTenant.create(first);
      const admin = await tenant.member('admin');
      tenantId = tenant.id;
      token = admin.token;
      vehicleId = (await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'PERS01', label: 'Camión Persistente' } })).body.id;
    } finally {
      await first.stop();
    }
    const second = await startLocalStack({ port, dataDir, tableName: 'delivery-ops' });
    try {
      expect(second.inMemory).toBe(false);
      // The token of the first run still verifies: the dev issuer kept its key.
      const read = await call(second, 'GET', `/v1/fleet/vehicles/${vehicleId}`, { token, tenantId });
      expect(read.status, read.text).toBe(200);
      expect(read.body.plate).toBe('PERS01');
    } finally {
      await second.stop();
    }
  }, 240_000);
});
