import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { table, tableName } from '../../../shared/table/client.ts';
import { recordKey } from '../../../functions/invoicing/records.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { connectSandbox } from '../integrations/support.ts';

export { invoiceBody } from './bodies.ts';

export const PREFIX = '/v1/customer-finance/invoice-intents';

/** The sandbox's ids for the settings (sandbox-data.ts): office 2, VAT 1, types 39 / 33 / 61. */
export const SANDBOX_SETTINGS = { officeId: '2', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } };

/**
 * A canonical record as the imports store it (issue 10), written directly: the tests need a party
 * or variant of the connection without running an import.
 */
export const putRecord = async (tenantId: string, connectionId: string, stream: 'parties' | 'variants', externalId: string): Promise<string> => {
  const id = randomUUID();
  await table().send(
    new PutCommand({ TableName: tableName(), Item: { ...recordKey(tenantId, connectionId, stream, id), entity: 'canonicalRecord', id, connectionId, externalId, stream } }),
  );
  return id;
};

/** A sandbox connection with issue settings, a customer and a catalogue item. */
export const readySandbox = async (tenant: TestTenant, admin: TestMember) => {
  const { connection } = await connectSandbox(tenant, admin);
  const settings = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { body: { version: 1, ...SANDBOX_SETTINGS } });
  expect(settings.status, settings.text).toBe(200);
  const customerId = await putRecord(tenant.id, connection.id, 'parties', '501');
  const variantId = await putRecord(tenant.id, connection.id, 'variants', '1001');
  return { connection: settings.body as { id: string; clientCode: string; version: number }, customerId, variantId };
};


/** draft → reviewed → approved, as operator then admin. */
export const approved = async (tenant: TestTenant, operator: TestMember, admin: TestMember, body: Record<string, unknown>) => {
  const created = await tenant.call(operator, 'POST', PREFIX, { body });
  expect(created.status, created.text).toBe(201);
  const reviewed = await tenant.call(operator, 'POST', `${PREFIX}/${created.body.id}/review`, { body: { version: 1 } });
  expect(reviewed.status, reviewed.text).toBe(200);
  const done = await tenant.call(admin, 'POST', `${PREFIX}/${created.body.id}/approve`, { body: { version: 2 } });
  expect(done.status, done.text).toBe(200);
  return done.body as { id: string; correlationId: string; version: number };
};
