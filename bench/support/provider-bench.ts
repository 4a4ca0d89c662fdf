import { randomUUID } from 'node:crypto';
import { pointAtProviderFake } from '../../infra/local/billing-provider.ts';
import { startLocalStack } from '../../infra/local/stack.ts';
import { newId } from '../../shared/ids.ts';
import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { startProviderFake } from '../../test/support/provider-fake/index.ts';

/**
 * What the billing-provider benchmarks share: the provider fake (rate limit off), the local stack
 * pointed at it, a tenant with an admin, and `api()` calling the gateway as that admin.
 */
export const startProviderBench = async () => {
  const fake = await startProviderFake();
  fake.setRateLimit(null);
  const stack = await startLocalStack({ port: 0, env: { TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);

  const tenantId = newId();
  await putTenant({ id: tenantId, name: 'Bench SpA' });
  await putMember({ tenantId, subject: 'bench-admin', role: 'admin', firstName: 'Bea' });
  const token = await stack.devIssuer.mint({ subject: 'bench-admin', ttlSeconds: 7200 });
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** A provider connection of a company already added to the fake, made through the API. */
  const connect = async (clientCode: string) => {
    const authorization = await api('POST', '/v1/integrations/provider/authorizations', { clientCode, name: 'Bench' });
    return api('POST', '/v1/integrations/connections', { code: await fake.approve(clientCode), bindingSecret: authorization.bindingSecret });
  };
  return { fake, stack, tenantId, api, connect };
};
