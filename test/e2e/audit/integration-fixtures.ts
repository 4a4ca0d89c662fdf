import { afterAll, expect } from 'vitest';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import type { ApiResponse, TestMember, TestTenant } from '../../support/api.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';

/**
 * The audit walk's fixtures for the billing-provider connection operations (issue 8), spread
 * into `fixtures`. The sandbox serves the connections; the provider route gets the fake.
 */
interface IntegrationWorld {
  tenant: TestTenant;
  admin: TestMember;
}

const SANDBOX = '/v1/integrations/sandbox/authorizations';
const RUT = '76123456-0';

const ok = (response: ApiResponse, status: number) => {
  expect(response.status, response.text).toBe(status);
  return response.body;
};

let fake: ProviderFake | undefined;
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});

/** The fake provider, started on first use, with PROVIDER_* pointing at it. */
const providerFake = async (): Promise<ProviderFake> => {
  if (fake) return fake;
  fake = await startProviderFake();
  fake.setRateLimit(null);
  fake.addCompany({ clientCode: RUT, clientName: 'Frutas del Maule SpA' });
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
  return fake;
};

/** A sandbox connection made through the API: authorize, follow the consent page, complete. */
const sandboxConnection = async (w: IntegrationWorld): Promise<{ id: string; version: number }> => {
  const authorization = ok(await w.tenant.call(w.admin, 'POST', SANDBOX, { body: { clientCode: RUT, name: 'Facturación' } }), 201);
  const consent = await fetch(authorization.authorizeUrl, { redirect: 'manual' });
  const code = new URL(consent.headers.get('location')!, authorization.authorizeUrl).searchParams.get('code');
  return ok(await w.tenant.call(w.admin, 'POST', '/v1/integrations/connections', { body: { code, bindingSecret: authorization.bindingSecret } }), 201);
};

const settingsOf = async (w: IntegrationWorld, connectionId: string) => {
  const options = ok(await w.tenant.call(w.admin, 'GET', `/v1/integrations/connections/${connectionId}/issue-options`), 200);
  const type = (codeSii: string) => options.documentTypes.find((d: { codeSii: string | null }) => d.codeSii === codeSii).id;
  return { officeId: options.offices[0].id, vatTaxId: options.taxes[0].id, documentTypeIds: { receipt: type('39'), invoice: type('33'), creditNote: type('61') } };
};

export const integrationFixtures = {
  createSandboxAuthorization: {
    prepare: async (w: IntegrationWorld) => ({ member: w.admin, method: 'POST', path: SANDBOX, body: { clientCode: RUT, name: 'Facturación' }, status: 201, resourceId: (r: ApiResponse) => r.body.id }),
    refuse: async (w: IntegrationWorld) => ({ member: w.admin, method: 'POST', path: SANDBOX, body: { clientCode: '76123456-1', name: 'Facturación' }, status: 422 }),
  },
  createProviderAuthorization: {
    prepare: async (w: IntegrationWorld) => {
      await providerFake();
      return { member: w.admin, method: 'POST', path: '/v1/integrations/provider/authorizations', body: { clientCode: RUT, name: 'Facturación' }, status: 201, resourceId: (r: ApiResponse) => r.body.id };
    },
  },
  createConnection: {
    prepare: async (w: IntegrationWorld) => {
      const authorization = ok(await w.tenant.call(w.admin, 'POST', SANDBOX, { body: { clientCode: RUT, name: 'Facturación' } }), 201);
      const consent = await fetch(authorization.authorizeUrl, { redirect: 'manual' });
      const code = new URL(consent.headers.get('location')!, authorization.authorizeUrl).searchParams.get('code');
      return { member: w.admin, method: 'POST', path: '/v1/integrations/connections', body: { code, bindingSecret: authorization.bindingSecret }, status: 201, resourceId: (r: ApiResponse) => r.body.id };
    },
    refuse: async (w: IntegrationWorld) => ({ member: w.admin, method: 'POST', path: '/v1/integrations/connections', body: { code: 'sandbox-code-1234', bindingSecret: 'a'.repeat(64) }, status: 422 }),
  },
  revokeConnection: {
    prepare: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      return { member: w.admin, method: 'POST', path: `/v1/integrations/connections/${connection.id}/revoke`, body: { version: connection.version }, status: 200, resourceId: () => connection.id };
    },
    refuse: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      return { member: w.admin, method: 'POST', path: `/v1/integrations/connections/${connection.id}/revoke`, body: { version: connection.version + 1 }, status: 409 };
    },
  },
  putIssueSettings: {
    prepare: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      const settings = await settingsOf(w, connection.id);
      return { member: w.admin, method: 'PUT', path: `/v1/integrations/connections/${connection.id}/issue-settings`, body: { version: connection.version, ...settings }, status: 200, resourceId: () => connection.id };
    },
    refuse: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      const settings = await settingsOf(w, connection.id);
      return { member: w.admin, method: 'PUT', path: `/v1/integrations/connections/${connection.id}/issue-settings`, body: { version: connection.version + 1, ...settings }, status: 409 };
    },
  },
  startImport: {
    prepare: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      return { member: w.admin, method: 'POST', path: `/v1/integrations/connections/${connection.id}/imports`, body: {}, status: 202, resourceId: (r: ApiResponse) => r.body.id };
    },
    refuse: async (w: IntegrationWorld) => {
      const connection = await sandboxConnection(w);
      ok(await w.tenant.call(w.admin, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: connection.version } }), 200);
      return { member: w.admin, method: 'POST', path: `/v1/integrations/connections/${connection.id}/imports`, body: {}, status: 409 };
    },
  },
};
