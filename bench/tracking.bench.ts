import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { startLocalStack } from '../infra/local/stack.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { putTenant } from '../shared/tenancy/tenants.ts';
import { newId } from '../shared/ids.ts';
import { opsKeys } from '../shared/table/keys-operations.ts';
import { table, tableName } from '../shared/table/client.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench:tracking`: the two public tracking routes through the local gateway (real HTTP
 * on 127.0.0.1, the middy chain, one GetItem of the projected view, rendering) beside the one
 * direct GetItem of the view they stand on; then the page's size.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BLOCK = 20;

process.env.LOG_LEVEL = 'WARN';
const stack = await startLocalStack({ port: 0, env: { TRACKING_RATE_LIMIT_PER_MINUTE: '100000000', TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });

const tenantId = newId();
await putTenant({ id: tenantId, name: 'Bench Distribuciones SpA' });
await putMember({ tenantId, subject: 'bench-operator', role: 'operator', firstName: 'Olga' });
const driver = await putMember({ tenantId, subject: 'bench-driver', role: 'driver', firstName: 'Diego' });
const tokens = { operator: await stack.devIssuer.mint({ subject: 'bench-operator', ttlSeconds: 3600 }), driver: await stack.devIssuer.mint({ subject: 'bench-driver', ttlSeconds: 3600 }) };

const api = async (who: keyof typeof tokens, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens[who]}`, 'x-tenant-id': tenantId, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
};

// One route of three stops under way, with a position: the heaviest view (ETA, driver, drawing).
const orders = [];
for (const [i, [latitude, longitude]] of [[-33.44, -70.65], [-33.43, -70.64], [-33.42, -70.63]].entries()) {
  orders.push(await api('operator', 'POST', '/v1/distribution/orders', { reference: `BENCH-${i}`, recipient: { name: 'Bench' }, address: { text: 'x', latitude, longitude }, serviceDate: '2026-11-23' }));
}
const plan = await api('operator', 'POST', '/v1/routing/plans', { serviceDate: '2026-11-23', routes: [{ orderIds: orders.map((o) => o.id) }] });
await api('operator', 'POST', `/v1/routing/plans/${plan.id}/approve`, { version: 1 });
const route = await api('operator', 'POST', '/v1/field/routes', { routePlanId: plan.id, vehicleRouteId: 'R1', workerId: driver.id, serviceDate: '2026-11-23', depotName: 'Bodega', vehicle: { plate: 'BENCH1', label: 'Van' } });
await api('driver', 'POST', `/v1/field/routes/${route.id}/start`);
await api('driver', 'POST', `/v1/field/routes/${route.id}/positions`, { latitude: -33.45, longitude: -70.66, recordedAt: new Date().toISOString() });
const token = (orders[2].trackingUrl as string).split('/t/')[1];

const deadline = Date.now() + 15_000;
for (;;) {
  const view = await (await fetch(`${stack.baseUrl}/v1/track/${token}`)).json().catch(() => undefined);
  if (view?.approximatePosition) break;
  if (Date.now() > deadline) throw new Error('the projection did not build the view');
  await new Promise((r) => setTimeout(r, 100));
}

const get = async (path: string, expected: string) => {
  const response = await fetch(`${stack.baseUrl}${path}`);
  const body = await response.text();
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith(expected)) throw new Error(`${path}: ${response.status}`);
  return body;
};
const pathView = () => get(`/v1/track/${token}`, 'application/json');
const pathPage = () => get(`/t/${token}`, 'text/html');
const floor = () => table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.trackingView(token) }));

// Warm both sides (JIT, connections, DynamoDB Local) before measuring.
await compare(2, 10, pathView, floor);
await compare(2, 10, pathPage, floor);

console.log(`\nPublic tracking through the local gateway (HTTP on 127.0.0.1) vs one direct GetItem of the view (DynamoDB Local, ${ROUNDS * BLOCK} requests each side)\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
for (const [label, path] of [
  ['GET /v1/track/{token}', pathView],
  ['GET /t/{token}', pathPage],
] as const) {
  const r = await compare(ROUNDS, BLOCK, path, floor);
  const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
  console.log(`| ${label} | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`);
}

const page = await pathPage();
const json = await pathView();
const fetches = (page.match(/<(script|img|iframe|link rel="stylesheet"|object|embed)\b|url\(|@import/gi) ?? []).length;
console.log(`\nTracking page (on the way, with position drawing): ${Buffer.byteLength(page)} bytes (${(Buffer.byteLength(page) / 1024).toFixed(1)} KiB) of HTML with inline CSS and SVG; subresources to fetch: ${fetches}. JSON view: ${Buffer.byteLength(json)} bytes.`);

await stack.stop();
