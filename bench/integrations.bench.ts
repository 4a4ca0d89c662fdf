import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../shared/table/client.ts';
import { setSecrets } from '../shared/ports/secrets.ts';
import { keys } from '../shared/table/keys.ts';
import { startProviderBench } from './support/provider-bench.ts';
import { compare, fmt, percentile } from './support/stats.ts';
import { memberRead, rateCount } from './support/gate-calls.ts';

/**
 * `npm run bench:integrations`: GET …/issue-options through the local gateway, the middy chain
 * and the real provider-chile-v1 adapter against the provider fake (three list reads), beside
 * the same table calls and the same three HTTP reads of the fake made directly.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BLOCK = 20;
process.env.LOG_LEVEL = 'WARN';

const { fake, stack, tenantId, api, connect } = await startProviderBench();
const company = { clientCode: '76086428-5', clientName: 'Bench SpA' };
const accessToken = fake.addCompany(company);
const connection = await connect(company.clientCode);

const path = () => api('GET', `/v1/integrations/connections/${connection.id}/issue-options`);
const list = (route: string) => fetch(`${fake.apiUrl}${route}?limit=50&offset=0&state=0`, { headers: { access_token: accessToken } }).then((r) => r.json());
// The same calls made directly, in the request path's order: membership, then the tenant's rate.
const floor = () =>
  memberRead(tenantId, 'bench-admin')
    .then(() => rateCount(tenantId))
    .then(() => table().send(new GetCommand({ TableName: tableName(), Key: keys.providerConnection(tenantId, connection.id), ConsistentRead: true })))
    .then(() => Promise.all(['/v1/offices.json', '/v1/taxes.json', '/v1/document_types.json'].map(list)));

await compare(2, 10, path, floor);
const r = await compare(ROUNDS, BLOCK, path, floor);
const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
console.log(`\nIssue options through the local gateway and the real adapter vs the same table calls and provider reads made directly (${ROUNDS * BLOCK} requests each side)\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
console.log(`| GET /v1/integrations/connections/{id}/issue-options | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`);
setSecrets(undefined);
await stack.stop();
await fake.stop();
