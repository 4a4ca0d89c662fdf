import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

/** Polls an import until it settles; the worker runs behind the local queue. */
export const waitForImport = async (tenant: TestTenant, member: TestMember, connectionId: string, importId: string, timeoutMs = WAIT_LIMIT_MS) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await tenant.call(member, 'GET', `/v1/integrations/connections/${connectionId}/imports/${importId}`);
    // A poller honours 503 + Retry-After as a client would: locally the worker shares the table
    // client and DynamoDB Local with the API, so a page's large transaction can hold a read up.
    if (read.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    expect(read.status, read.text).toBe(200);
    if (read.body.state === 'succeeded' || read.body.state === 'failed') return read.body;
    if (Date.now() > deadline) throw new Error(`import ${importId} still ${read.body.state} after ${timeoutMs} ms: ${read.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

export const startImport = async (tenant: TestTenant, member: TestMember, connectionId: string, body: Record<string, unknown> = {}) => {
  const started = await tenant.call(member, 'POST', `/v1/integrations/connections/${connectionId}/imports`, { body });
  expect(started.status, started.text).toBe(202);
  return started.body;
};

export const runImport = async (tenant: TestTenant, member: TestMember, connectionId: string, body: Record<string, unknown> = {}) =>
  waitForImport(tenant, member, connectionId, (await startImport(tenant, member, connectionId, body)).id);

/** Every record of a stream, page by page (the API's own paging). */
export const allRecords = async (tenant: TestTenant, member: TestMember, connectionId: string, segment: string, limit = 100) => {
  const items: any[] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const query: string = `?limit=${limit}${after ? `&after=${after}` : ''}`;
    const page = await tenant.call(member, 'GET', `/v1/integrations/connections/${connectionId}/${segment}${query}`);
    expect(page.status, page.text).toBe(200);
    expect(page.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...page.body.items);
    after = page.body.nextCursor;
    pages++;
  } while (after);
  return { items, pages };
};

/** A folder for SANDBOX_PROVIDER_DATA_DIR, and a writer of one company's file in it. */
export const sandboxDataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
  return { dir, write: (clientCode: string, data: Record<string, unknown>) => writeFileSync(join(dir, `${clientCode}.json`), JSON.stringify(data)) };
};

export const variant = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  description: `Variante ${id}`,
  code: `SKU-${id}`,
  barCode: '',
  state: 0,
  product: { id: String(Math.floor(id / 10)) },
  ...over,
});

export const stock = (variantId: number, officeId: number, quantity: number, over: Record<string, unknown> = {}) => ({
  quantity,
  quantityReserved: 0,
  quantityAvailable: quantity,
  variant: { id: String(variantId) },
  office: { id: String(officeId) },
  ...over,
});

/** Authorize at the provider fake, approve, complete: the connection. */
export const connectProvider = async (tenant: TestTenant, admin: TestMember, fake: { approve(clientCode: string): Promise<string> | string }, clientCode: string) => {
  const authorization = await tenant.call(admin, 'POST', '/v1/integrations/provider/authorizations', { body: { clientCode, name: 'Catálogo' } });
  expect(authorization.status, authorization.text).toBe(201);
  const connection = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code: await fake.approve(clientCode), bindingSecret: authorization.body.bindingSecret } });
  expect(connection.status, connection.text).toBe(201);
  return connection.body as { id: string; version: number };
};
