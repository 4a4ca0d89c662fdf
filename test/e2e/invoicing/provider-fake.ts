import { expect } from 'vitest';
import type { TestMember, TestTenant } from '../../support/api.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { putRecord } from './support.ts';

export const FAKE_SETTINGS = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } };

/**
 * A provider-chile-v1 connection of the fake's company, with settings and a customer (client 2).
 * `token`: the company is already at the fake (another connection of the same company).
 */
export const connectFake = async (fake: ProviderFake, tenant: TestTenant, admin: TestMember, company: { clientCode: string; clientName: string }, existingToken?: string) => {
  const token = existingToken ?? fake.addCompany(company);
  const authorization = await tenant.call(admin, 'POST', '/v1/integrations/provider/authorizations', { body: { clientCode: company.clientCode, name: 'Facturación' } });
  expect(authorization.status, authorization.text).toBe(201);
  const code = await fake.approve(company.clientCode);
  const connection = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code, bindingSecret: authorization.body.bindingSecret } });
  expect(connection.status, connection.text).toBe(201);
  const settings = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${connection.body.id}/issue-settings`, { body: { version: 1, ...FAKE_SETTINGS } });
  expect(settings.status, settings.text).toBe(200);
  const customerId = await putRecord(tenant.id, connection.body.id, 'parties', '2');
  return { token, connectionId: connection.body.id as string, customerId };
};
