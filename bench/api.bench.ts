import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { functionGroups } from '../functions/index.ts';
import { ensureTable } from '../infra/local/create-table.ts';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { startDevIssuer } from '../infra/local/oidc-issuer.ts';
import { auditWrite } from '../shared/audit/entry.ts';
import { epochSeconds } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { keys, tenantPk } from '../shared/table/keys.ts';
import { resetTableClient, table, tableName } from '../shared/table/client.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { putTenant } from '../shared/tenancy/tenants.ts';
import { bundle, coldImportMs, floorBundle, sizeOf } from './support/bundles.ts';
import { apiEvent, lambdaContext } from './support/events.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench`: our full handler path (middy chain, token, membership, validation, one
 * transaction) beside the same DynamoDB calls made directly, against one DynamoDB Local; then
 * each function bundle's size and cold import time beside a bundle of the DynamoDB client alone.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BLOCK = 20;
const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);

const work = mkdtempSync(join(tmpdir(), 'bench-'));
const dynamo = await startDynamoDbLocal();
const name = `bench-${randomUUID()}`;
await ensureTable(dynamo.endpoint, name);
const issuer = await startDevIssuer({ dir: join(work, 'oidc'), issuer: 'http://127.0.0.1/dev-oidc' });
Object.assign(process.env, {
  TABLE_NAME: name,
  DYNAMODB_ENDPOINT: dynamo.endpoint,
  OIDC_ISSUER: issuer.issuer,
  OIDC_AUDIENCE: issuer.audience,
  OIDC_JWKS_FILE: issuer.jwksFile,
  LOG_LEVEL: 'WARN',
  TENANT_RATE_LIMIT_PER_MINUTE: '100000000',
});
resetTableClient();

const tenantId = newId();
await putTenant({ id: tenantId, name: 'Bench SpA' });
const { id: memberId } = await putMember({ tenantId, subject: 'bench-admin', role: 'admin', firstName: 'Bea' });
const token = await issuer.mint({ subject: 'bench-admin', ttlSeconds: 3600 });
const headers = { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId };

const { handler } = await import('../functions/fleet/handler.ts');
const invoke = async (event: ReturnType<typeof apiEvent>, expected: number) => {
  const result = await handler(event, lambdaContext('delivery-ops-fleet') as Parameters<typeof handler>[1]);
  if (result.statusCode !== expected) throw new Error(`expected ${expected}, got ${result.statusCode}: ${result.body}`);
  return result;
};

const plate = (i: number) => `B${String(i).padStart(6, '0')}${Math.random().toString(36).slice(2, 5).toUpperCase()}`;
const seeded = JSON.parse((await invoke(apiEvent({ routeKey: 'POST /v1/fleet/vehicles', path: '/v1/fleet/vehicles', headers: { ...headers, 'idempotency-key': randomUUID() }, body: { plate: 'SEED01', label: 'Seed' } }), 201)).body!);

/** The calls every authenticated request makes before its own: membership and the tenant's rate. */
const gate = () =>
  Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, 'bench-admin'), ConsistentRead: true })),
    table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(tenantId, Math.floor(Date.now() / 60_000)),
        UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :e)',
        ExpressionAttributeValues: { ':one': 1, ':e': epochSeconds() + 120 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  ]);

const floorCreate = async (i: number) => {
  await gate();
  const key = randomUUID();
  await table().send(new GetCommand({ TableName: tableName(), Key: keys.idempotency(tenantId, 'createVehicle', key), ConsistentRead: true }));
  const id = newId();
  const p = plate(i);
  const now = new Date().toISOString();
  await table().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName(), Item: { ...keys.vehicle(tenantId, id), entity: 'vehicle', tenantId, vehicleId: id, plate: p, label: 'Floor', active: true, version: 1, createdAt: now, updatedAt: now }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: tableName(), Item: { ...keys.plate(tenantId, p), entity: 'plate', tenantId, vehicleId: id }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Put: { TableName: tableName(), Item: { ...keys.idempotency(tenantId, 'createVehicle', key), entity: 'idempotency', fingerprint: 'x', statusCode: 201, body: '{}', headers: {}, expiresAt: epochSeconds() + 86_400 }, ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now', ExpressionAttributeValues: { ':now': epochSeconds() } } },
        // The audit entry every change writes (docs/audit.md), with its three index keys.
        auditWrite({ tenantId, actorId: memberId, action: 'createVehicle', resourceId: id, requestId: key, now: new Date() }).item,
      ],
    }),
  );
};

const pathCreate = (i: number) =>
  invoke(apiEvent({ routeKey: 'POST /v1/fleet/vehicles', path: '/v1/fleet/vehicles', headers: { ...headers, 'idempotency-key': randomUUID() }, body: { plate: plate(i), label: 'Path' } }), 201);

const pathGet = () =>
  invoke(apiEvent({ routeKey: 'GET /v1/fleet/vehicles/{id}', path: `/v1/fleet/vehicles/${seeded.id}`, headers, pathParameters: { id: seeded.id } }), 200);
const floorGet = async () => {
  await gate();
  await table().send(new GetCommand({ TableName: tableName(), Key: keys.vehicle(tenantId, seeded.id), ConsistentRead: true }));
};

const pathList = () => invoke(apiEvent({ routeKey: 'GET /v1/fleet/vehicles', path: '/v1/fleet/vehicles', headers, query: { limit: '20' } }), 200);
const floorList = async () => {
  await gate();
  await table().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': keys.vehiclePrefix },
      Limit: 21,
    }),
  );
};

// Warm both sides (JIT, connections, DynamoDB Local) before measuring.
await compare(2, 10, pathCreate, floorCreate);
await compare(2, 10, pathGet, floorGet);
await compare(2, 10, pathList, floorList);

const rows: string[] = [];
console.log(`\nHandler path vs the same DynamoDB calls made directly (DynamoDB Local, ${ROUNDS * BLOCK} requests each side)\n`);
const header = '| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |';
console.log(header);
console.log('|---|---|---|---|---|---|---|');
for (const [label, path, floor] of [
  ['create (POST /v1/fleet/vehicles)', pathCreate, floorCreate],
  ['get (GET /v1/fleet/vehicles/{id})', pathGet, floorGet],
  ['list (GET /v1/fleet/vehicles?limit=20)', pathList, floorList],
] as const) {
  const r = await compare(ROUNDS, BLOCK, path, floor);
  const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
  const row = `| ${label} | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`;
  rows.push(row);
  console.log(row);
}

console.log(`\nFunction bundles (esbuild, minified ESM) and cold import in a fresh Node ${process.version} process, median of ${COLD_RUNS}\n`);
console.log('| bundle | size KiB | cold import ms | size / floor | import / floor |');
console.log('|---|---|---|---|---|');
const outDir = join(work, 'bundles');
const floorFile = await floorBundle(outDir);
const files = [floorFile];
for (const group of functionGroups) files.push(await bundle(group.entry, outDir, group.name));
const [floorImport, ...imports] = coldImportMs(files, COLD_RUNS);
const floorSize = sizeOf(floorFile);
console.log(`| floor (DynamoDB client only) | ${(floorSize / 1024).toFixed(1)} | ${fmt(floorImport)} | 1.00 | 1.00 |`);
functionGroups.forEach((group, i) => {
  const size = sizeOf(files[i + 1]);
  console.log(`| ${group.name} | ${(size / 1024).toFixed(1)} | ${fmt(imports[i])} | ${(size / floorSize).toFixed(2)} | ${(imports[i] / floorImport).toFixed(2)} |`);
});

resetTableClient();
await dynamo.stop();
rmSync(work, { recursive: true, force: true });
