import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { newId } from '../../shared/ids.ts';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { startLocalBillingProvider } from './billing-provider.ts';
import { startLocalStack } from './stack.ts';

/**
 * `npm start`: the whole service on this machine. Data persists in .local/ (or --data-dir) unless --in-memory.
 * Prints the base URL, a demo tenant and a curl that works; Ctrl-C stops everything it started.
 */
const { values } = parseArgs({
  options: { 'in-memory': { type: 'boolean', default: false }, 'provider-fake': { type: 'boolean', default: false }, 'data-dir': { type: 'string' } },
});
const port = Number(process.env.PORT ?? 3000);
const dataDir = values['in-memory'] ? undefined : resolve(values['data-dir'] ?? '.local');

const stack = await startLocalStack({ port, dataDir });
const billing = await startLocalBillingProvider({ fake: values['provider-fake'] });

// The demo tenant keeps its id across restarts so that saved curls keep working.
const demoFile = dataDir ? join(dataDir, 'demo.json') : undefined;
const demo: { tenantId: string } = demoFile && existsSync(demoFile) ? JSON.parse(readFileSync(demoFile, 'utf8')) : { tenantId: newId() };
await putTenant({ id: demo.tenantId, name: 'Distribuidora Demo' });
await putMember({ tenantId: demo.tenantId, subject: 'demo-admin', role: 'admin', firstName: 'Camila' });
if (demoFile) writeFileSync(demoFile, JSON.stringify(demo));
const token = await stack.devIssuer.mint({ subject: 'demo-admin', mfa: true, ttlSeconds: 12 * 3600 });

console.log(`
Delivery operations service, local stack
  base URL     ${stack.baseUrl}
  table        ${stack.tableName} on DynamoDB Local ${stack.dynamoEndpoint} (${stack.inMemory ? 'in memory' : `data in ${dataDir}`})
  OIDC issuer  ${stack.issuer} (audience ${stack.audience})
  demo tenant  ${demo.tenantId}  (admin: subject demo-admin, token below is valid 12 h)

Try:
  curl -s ${stack.baseUrl}/v1/assistant/questions \\
    -H "Authorization: Bearer ${token}" \\
    -H "x-tenant-id: ${demo.tenantId}" \\
    -H "content-type: application/json" \\
    -d '{"text":"¿Dónde está el camión hoy?"}'

More tokens:  PORT=${port} npm run token -- --subject demo-admin --mfa
Operator:     PORT=${port} npm run admin -- members add --tenant ${demo.tenantId} --subject ana --role operator --first-name Ana
${
  billing.fake
    ? `Billing provider: the local fake at ${billing.fake.apiUrl} (OAuth ${billing.fake.oauthUrl}); its demo company is ${billing.fake.clientCode}`
    : 'Billing provider: the sandbox (POST /v1/integrations/sandbox/authorizations); npm start -- --provider-fake for the provider fake'
}
Ctrl-C stops everything.
`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('stopping…');
  await billing.stop();
  await stack.stop();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
