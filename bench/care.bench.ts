import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack } from '../infra/local/stack.ts';
import { newId } from '../shared/ids.ts';
import { keys, tenantPk } from '../shared/table/keys.ts';
import { table, tableName } from '../shared/table/client.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { putTenant } from '../shared/tenancy/tenants.ts';
import { seedCareFleet } from '../test/support/care-fleet.ts';
import { apiEvent, lambdaContext } from './support/events.ts';
import { memberRead, rateCount } from './support/gate-calls.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench:care`: GET /v1/fleet/care for 1,000 vehicles with 5,000 due items through the
 * fleet Lambda handler (middy chain, token, membership, the reads, the due-list rules, JSON)
 * beside the same DynamoDB calls made directly (membership and rate, the tenant, the two
 * Queries with all their pages), in alternating blocks against one DynamoDB Local.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BLOCK = 10;
const VEHICLES = 1000;

process.env.LOG_LEVEL = 'WARN';
const stack = await startLocalStack({ port: 0, env: { TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });

const tenantId = newId();
await putTenant({ id: tenantId, name: 'Bench Flota SpA' });
await putMember({ tenantId, subject: 'bench-viewer', role: 'viewer', firstName: 'Vera' });
const token = await stack.devIssuer.mint({ subject: 'bench-viewer', ttlSeconds: 3600 });
await seedCareFleet(tenantId, VEHICLES);

const { handler } = await import('../functions/fleet/handler.ts');
let lastBody = '';
const path = async () => {
  const event = apiEvent({ routeKey: 'GET /v1/fleet/care', path: '/v1/fleet/care', headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId } });
  const result = await handler(event, lambdaContext('delivery-ops-fleet') as Parameters<typeof handler>[1]);
  if (result.statusCode !== 200) throw new Error(`expected 200, got ${result.statusCode}: ${result.body}`);
  lastBody = result.body!;
};

let pages = 0;
const queryAll = async (prefix: string) => {
  let start: Record<string, unknown> | undefined;
  let count = 0;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': prefix },
        ExclusiveStartKey: start,
        ConsistentRead: true,
        Limit: VEHICLES - count,
      }),
    );
    count += page.Items?.length ?? 0;
    start = page.LastEvaluatedKey;
    pages += 1;
  } while (start && count < VEHICLES);
};
const floor = async () => {
  // As the request path: the membership, then (for an active member) the tenant's rate.
  await memberRead(tenantId, 'bench-viewer');
  await rateCount(tenantId);
  await Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId) })),
    queryAll(keys.vehiclePrefix),
    queryAll(keys.carePrefix),
  ]);
};

await compare(1, 5, path, floor);
pages = 0;
await floor();
const pagesPerList = pages;
const list = JSON.parse(lastBody);
if (list.vehicles.length !== VEHICLES || list.due.length !== 5 * VEHICLES) throw new Error(`unexpected list: ${list.vehicles.length} vehicles, ${list.due.length} due`);

const r = await compare(ROUNDS, BLOCK, path, floor);
const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
console.log(`\nGET /v1/fleet/care, ${VEHICLES} vehicles, ${list.due.length} due items: handler path vs the same DynamoDB calls made directly (${ROUNDS * BLOCK} requests each side)\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
console.log(`| GET /v1/fleet/care (${VEHICLES} vehicles) | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`);
console.log(`\nQuery pages per list: ${pagesPerList} (vehicles and care items); response ${(Buffer.byteLength(lastBody) / 1024).toFixed(0)} KiB of JSON`);

await stack.stop();
