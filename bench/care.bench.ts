import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { putVehicleCare } from '../functions/fleet/care.ts';
import { addReading } from '../functions/fleet/odometer-digest.ts';
import { createVehicle } from '../functions/fleet/vehicles.ts';
import { addDaysTo, localDate } from '../shared/calendar.ts';
import { commit } from '../shared/table/transaction.ts';
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
 * Queries with all their pages), in alternating blocks against one DynamoDB Local. Then the
 * same for a tenant whose vehicles' readings give an average of 0 and one below 0 (issue 16:
 * such a list once never answered).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const BLOCK = 10;
const VEHICLES = 1000;

process.env.LOG_LEVEL = 'WARN';
const stack = await startLocalStack({ port: 0, env: { TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });

const tenantId = newId();
await putTenant({ id: tenantId, name: 'Bench Flota SpA' });
await putMember({ tenantId, subject: 'bench-viewer', role: 'viewer', firstName: 'Vera' });
const stalledId = newId();
await putTenant({ id: stalledId, name: 'Bench Quieta SpA' });
await putMember({ tenantId: stalledId, subject: 'bench-viewer', role: 'viewer', firstName: 'Vera' });
const token = await stack.devIssuer.mint({ subject: 'bench-viewer', ttlSeconds: 3600 });
await seedCareFleet(tenantId, VEHICLES);

const { handler } = await import('../functions/fleet/handler.ts');
let lastBody = '';
let current = tenantId;
const path = async () => {
  const event = apiEvent({ routeKey: 'GET /v1/fleet/care', path: '/v1/fleet/care', headers: { authorization: `Bearer ${token}`, 'x-tenant-id': current } });
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
        ExpressionAttributeValues: { ':pk': tenantPk(current), ':prefix': prefix },
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
  await memberRead(current, 'bench-viewer');
  await rateCount(current);
  await Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(current) })),
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

// Two vehicles 500 km from serviceKm: one whose readings did not move in 9 days (dailyKm 0), one
// whose stored readings go backwards (dailyKm < 0, as a race could once store them).
const zone = 'America/Santiago';
const today = localDate(new Date(), zone);
const noon = (days: number) => `${addDaysTo(today, days)}T16:00:00.000Z`;
for (const [plate, kms] of [['QUIETO1', [49_000, 49_000]], ['REVERSA1', [50_000, 49_000]]] as const) {
  const { vehicle, writes } = createVehicle(stalledId, { plate, label: plate, active: true }, new Date());
  await commit(writes);
  await commit((await putVehicleCare(stalledId, vehicle.id, { version: 0, technicalReview: null, circulationPermit: null, soap: null, service: null, serviceKm: 49_500 }, new Date())).writes);
  const digest = addReading(addReading(undefined, { km: kms[0], readAt: noon(-10) }, today, zone), { km: kms[1], readAt: noon(-1) }, today, zone);
  await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.care(stalledId, vehicle.id), UpdateExpression: 'SET odometer = :d, odometerSeq = :s', ExpressionAttributeValues: { ':d': digest, ':s': 2 } }));
}
current = stalledId;
const s = await compare(ROUNDS, BLOCK, path, floor);
const stalled = JSON.parse(lastBody);
if (stalled.due.length !== 2 || !stalled.kmLimited) throw new Error(`unexpected list: ${lastBody}`);
const [s50, g50, s99, g99] = [percentile(s.path, 50), percentile(s.floor, 50), percentile(s.path, 99), percentile(s.floor, 99)];
console.log(`| GET /v1/fleet/care (averages of 0 and below 0) | ${fmt(s50)} | ${fmt(g50)} | ${(s50 / g50).toFixed(2)} | ${fmt(s99)} | ${fmt(g99)} | ${(s99 / g99).toFixed(2)} |`);

await stack.stop();
