import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
// Provider notices: 1,000 for one company within a minute (every other one a repeat of the same
// stock line, the rest each another variant's), answered after they are recorded. The floor is
// the same table calls made directly: the viewer's rate window, the company lookup, the notice's
// conditional write.
process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE = '100000000';
const started = await api('POST', `/v1/integrations/connections/${connection.id}/imports`, { streams: ['variants'] });
while ((await api('GET', `/v1/integrations/connections/${connection.id}/imports/${started.id}`)).state !== 'succeeded') await new Promise((r) => setTimeout(r, 100));
const noticeBody = (i: number) => (i % 2 === 0 ? { cpnId: company.clientCode, topic: 'stock', resource: '/v2/stocks.json?variant=1&office=1' } : { cpnId: company.clientCode, topic: 'stock', resourceId: String(10_000 + i) });
const notice = (i: number) =>
  fetch(`${stack.baseUrl}/v1/integrations/provider/notifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(noticeBody(i)) }).then((r) => {
    if (r.status !== 202) throw new Error(`notice answered ${r.status}`);
    return r.arrayBuffer();
  });
const noticeFloor = async (i: number) => {
  const minute = Math.floor(Date.now() / 60_000);
  await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.noticeRateWindow('127.0.0.1', minute), UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :e)', ExpressionAttributeValues: { ':one': 1, ':e': (minute + 2) * 60 }, ReturnValues: 'UPDATED_NEW' }));
  await table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.providerCompanyPartition('provider-chile-v1', company.clientCode) }, Limit: 1 }));
  const at = Math.floor(Date.now() / 1000);
  await table()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.providerNotice('provider-chile-v1', 'floor', `stock#${i % 2 === 0 ? 1 : 10_000 + i}#*`),
        UpdateExpression: 'SET receivedAt = :at, expiresAt = :x',
        ConditionExpression: 'attribute_not_exists(receivedAt) OR receivedAt <= :repeat',
        ExpressionAttributeValues: { ':at': at, ':x': at + 3600, ':repeat': at - 60 },
      }),
    )
    .catch((error: Error) => {
      if (error.name !== 'ConditionalCheckFailedException') throw error;
    });
};
const readsBefore = fake.requests.filter((r) => r.path.includes('variantid=')).length;
const minuteStart = Date.now();
const n = await compare(20, 50, notice, noticeFloor);
const elapsed = Date.now() - minuteStart;
const [n50, nf50, n99, nf99] = [percentile(n.path, 50), percentile(n.floor, 50), percentile(n.path, 99), percentile(n.floor, 99)];
console.log(`\nProvider notices: 1,000 for one company in ${(elapsed / 1000).toFixed(1)} s through the local gateway vs the same table calls made directly; provider reads meanwhile: ${fake.requests.filter((r) => r.path.includes('variantid=')).length - readsBefore}\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
console.log(`| POST /v1/integrations/provider/notifications | ${fmt(n50)} | ${fmt(nf50)} | ${(n50 / nf50).toFixed(2)} | ${fmt(n99)} | ${fmt(nf99)} | ${(n99 / nf99).toFixed(2)} |`);
setSecrets(undefined);
await stack.stop();
await fake.stop();
