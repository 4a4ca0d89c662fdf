import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { startLocalStack } from '../infra/local/stack.ts';
import { auditWrite } from '../shared/audit/entry.ts';
import { epochSeconds } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { table, tableName } from '../shared/table/client.ts';
import { keys } from '../shared/table/keys.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { putTenant } from '../shared/tenancy/tenants.ts';
import { recordKey } from '../functions/invoicing/records.ts';
import { startFakeProviderEnv } from '../test/support/provider-env.ts';
import { invoiceBody } from '../test/e2e/invoicing/bodies.ts';
import { apiEvent, lambdaContext } from './support/events.ts';
import { memberRead, rateCount } from './support/gate-calls.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench:invoicing`: create, review and approve through the invoicing handler (middy
 * chain, token, membership, validation, one transaction) beside the same DynamoDB calls made
 * directly; issue through the handler and the real provider-chile-v1 adapter beside a raw POST
 * of the same document to the provider fake (plus the floor's table calls).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BLOCK = 20;
process.env.LOG_LEVEL = 'WARN';

const fake = await startFakeProviderEnv();
const company = { clientCode: '76086428-5', clientName: 'Bench SpA' };
const accessToken = fake.addCompany(company);
const stack = await startLocalStack({ port: 0, env: { TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });

const tenantId = newId();
await putTenant({ id: tenantId, name: 'Bench SpA' });
const { id: memberId } = await putMember({ tenantId, subject: 'bench-admin', role: 'admin', firstName: 'Bea' });
const token = await stack.devIssuer.mint({ subject: 'bench-admin', ttlSeconds: 3600 });
const headers = { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId };
const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};
const authorization = await api('POST', '/v1/integrations/provider/authorizations', { clientCode: company.clientCode, name: 'Bench' });
const connection = await api('POST', '/v1/integrations/connections', { code: await fake.approve(company.clientCode), bindingSecret: authorization.bindingSecret });
const settings = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } };
await api('PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { version: 1, ...settings });
const customerId = randomUUID();
await table().send(new PutCommand({ TableName: tableName(), Item: { ...recordKey(tenantId, connection.id, 'parties', customerId), id: customerId, externalId: '2' } }));

const PREFIX = '/v1/customer-finance/invoice-intents';
const body = invoiceBody(connection.id, customerId);

const { handler } = await import('../functions/invoicing/handler.ts');
const invoke = async (routeKey: string, path: string, expected: number, extra: { body?: unknown; id?: string } = {}) => {
  const event = apiEvent({ routeKey, path, headers: { ...headers, 'idempotency-key': randomUUID() }, body: extra.body, pathParameters: extra.id ? { id: extra.id } : undefined });
  const result = await handler(event, lambdaContext('delivery-ops-invoicing') as Parameters<typeof handler>[1]);
  if (result.statusCode !== expected) throw new Error(`${routeKey}: expected ${expected}, got ${result.statusCode}: ${result.body}`);
  return JSON.parse(result.body!);
};

/** What every authenticated request reads and writes before its own calls: membership and the tenant's rate. */
/** What every authenticated request does before its own calls, in turn as the request path does: membership, then the tenant's rate. */
const gate = async () => {
  await memberRead(tenantId, 'bench-admin');
  await rateCount(tenantId);
};
const get = (key: Record<string, unknown>) => table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
const idem = (operationId: string, key: string) => ({
  Put: { TableName: tableName(), Item: { ...keys.idempotency(tenantId, operationId, key), fingerprint: 'x', statusCode: 200, body: '{}', headers: {}, expiresAt: epochSeconds() + 86_400 } },
});
const audit = (action: string, id: string, key: string) => auditWrite({ tenantId, actorId: memberId, action, resourceId: id, requestId: key, now: new Date() }).item;
const intentItem = (id: string, version: number, state: string) => ({ ...keys.invoiceIntent(tenantId, id), id, tenantId, version, localState: state, ...body });

/** The floor's own intents (made directly), so its reviews and approvals have something to change. */
const floorIds: string[] = [];
const floorCreate = async () => {
  await gate();
  const key = randomUUID();
  await get(keys.idempotency(tenantId, 'createInvoiceIntent', key));
  await Promise.all([get(keys.providerConnection(tenantId, connection.id)), get(recordKey(tenantId, connection.id, 'parties', customerId))]);
  const id = newId();
  floorIds.push(id);
  await table().send(
    new TransactWriteCommand({ TransactItems: [idem('createInvoiceIntent', key), { Put: { TableName: tableName(), Item: intentItem(id, 1, 'draft'), ConditionExpression: 'attribute_not_exists(pk)' } }, audit('createInvoiceIntent', id, key)] }),
  );
};
const floorMove = (operationId: string, to: string, version: number, idempotent: boolean) => async (i: number) => {
  await gate();
  const key = randomUUID();
  if (idempotent) await get(keys.idempotency(tenantId, operationId, key));
  const id = floorIds[i % floorIds.length]!;
  await get(keys.invoiceIntent(tenantId, id));
  const put = { Put: { TableName: tableName(), Item: intentItem(id, version + 1, to), ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } } };
  await table().send(new TransactWriteCommand({ TransactItems: [...(idempotent ? [idem(operationId, key)] : []), put, audit(operationId, id, key)] }));
};

const pathIds: string[] = [];
const pathCreate = async () => pathIds.push((await invoke(`POST ${PREFIX}`, PREFIX, 201, { body })).id);
const pathMove = (move: string, version: number) => (i: number) => {
  const id = pathIds[i % pathIds.length]!;
  return invoke(`POST ${PREFIX}/{id}/${move}`, `${PREFIX}/${id}/${move}`, 200, { body: { version }, id });
};

// Each round's creates feed its reviews, approvals and issues (indexes taken per side).
const rows: Array<[string, { path: number[]; floor: number[] }]> = [];
const measure = async (label: string, path: (i: number) => Promise<unknown>, floor: (i: number) => Promise<unknown>) => {
  let p = 0;
  let f = 0;
  rows.push([label, await compare(ROUNDS, BLOCK, () => path(p++), () => floor(f++))]);
};
await pathCreate();
await floorCreate();
pathIds.length = 0;
floorIds.length = 0;
await measure(`POST ${PREFIX}`, pathCreate, floorCreate);
// Versions: every intent above is at 1 → review (2) → approve (3), one pass each.
await measure(`POST ${PREFIX}/{id}/review`, pathMove('review', 1), floorMove('reviewInvoiceIntent', 'reviewed', 1, false));
await measure(`POST ${PREFIX}/{id}/approve (idem)`, pathMove('approve', 2), floorMove('approveInvoiceIntent', 'approved', 2, true));

const document = (salesId: string) => ({
  documentTypeId: 1,
  officeId: 1,
  emissionDate: Math.floor(Date.now() / 86_400_000) * 86_400,
  declareSii: 1,
  salesId,
  clientId: 2,
  details: [
    { comment: 'Harina 1 kg', quantity: 2, netUnitValue: 1495, taxId: '[1]' },
    { comment: 'Despacho', quantity: 1, netUnitValue: 23000, taxId: '[1]' },
  ],
});
const rawPost = async () => {
  const response = await fetch(`${fake.apiUrl}/v1/documents.json`, { method: 'POST', headers: { access_token: accessToken, 'content-type': 'application/json' }, body: JSON.stringify(document(randomUUID())) });
  if (response.status !== 201) throw new Error(`raw POST: ${response.status}`);
  await response.json();
};
await measure(`POST ${PREFIX}/{id}/issue (vs raw POST to the fake)`, (i) => {
  const id = pathIds[i % pathIds.length]!;
  return invoke(`POST ${PREFIX}/{id}/issue`, `${PREFIX}/${id}/issue`, 200, { id });
}, rawPost);

console.log(`\nInvoice intents through the handler vs the same calls made directly (${ROUNDS * BLOCK} requests each side)\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, r] of rows) {
  const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
  console.log(`| ${label} | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`);
}
await stack.stop();
await fake.stop();
