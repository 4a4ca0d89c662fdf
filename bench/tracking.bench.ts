import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { startLocalStack } from '../infra/local/stack.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { putTenant } from '../shared/tenancy/tenants.ts';
import { newId } from '../shared/ids.ts';
import { opsKeys } from '../shared/table/keys-operations.ts';
import { table, tableName } from '../shared/table/client.ts';
import { recordAnswer, startHttpFloor } from './support/http-floor.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npm run bench:tracking`: the two public tracking routes through the local gateway (real HTTP
 * on 127.0.0.1, the API Gateway event, the middy chain, one GetItem of the projected view, the
 * view and its rendering) beside the same GetItem behind a bare node:http server that answers the
 * same bytes, both driven by the same fetch client in one run; then the page's size.
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

const get = async (baseUrl: string, path: string, expected: string) => {
  const response = await fetch(`${baseUrl}${path}`);
  const body = await response.text();
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith(expected)) throw new Error(`${baseUrl}${path}: ${response.status}`);
  return body;
};
const viewPath = `/v1/track/${token}`;
const pagePath = `/t/${token}`;

// The floor answers with the bytes the path answered (the ETA moves with the clock, so the path's
// later answers may differ from these in a character or two, never in their work).
const recorded = { [viewPath]: await recordAnswer(`${stack.baseUrl}${viewPath}`), [pagePath]: await recordAnswer(`${stack.baseUrl}${pagePath}`) };
const floorServer = await startHttpFloor(async (path) => {
  const answer = recorded[path];
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.trackingView(path.slice(path.lastIndexOf('/') + 1)) }));
  if (!answer || !Item) return { status: 404, headers: {}, body: Buffer.alloc(0) };
  return answer;
});

const sides = {
  view: { path: () => get(stack.baseUrl, viewPath, 'application/json'), floor: () => get(floorServer.baseUrl, viewPath, 'application/json') },
  page: { path: () => get(stack.baseUrl, pagePath, 'text/html'), floor: () => get(floorServer.baseUrl, pagePath, 'text/html') },
};
const bareGetItem = () => table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.trackingView(token) }));

// Warm every side (JIT, connections, DynamoDB Local) before measuring.
for (const side of Object.values(sides)) await compare(2, 10, side.path, side.floor);
await compare(2, 10, sides.view.floor, bareGetItem);

const load = () => loadavg().map((l) => l.toFixed(2)).join(' / ');
const loadBefore = load();
console.log(`\nPublic tracking through the local gateway vs the same GetItem behind a bare node:http server (both HTTP on 127.0.0.1, the same fetch client, the same bytes back; ${ROUNDS * BLOCK} requests each side, alternating blocks of ${BLOCK})\n`);
console.log('| operation | path p50 ms | floor p50 ms | ratio p50 | path p99 ms | floor p99 ms | ratio p99 |');
console.log('|---|---|---|---|---|---|---|');
const row = (label: string, r: { path: number[]; floor: number[] }) => {
  const [p50, f50, p99, f99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
  console.log(`| ${label} | ${fmt(p50)} | ${fmt(f50)} | ${(p50 / f50).toFixed(2)} | ${fmt(p99)} | ${fmt(f99)} | ${(p99 / f99).toFixed(2)} |`);
};
row('GET /v1/track/{token}', await compare(ROUNDS, BLOCK, sides.view.path, sides.view.floor));
row('GET /t/{token}', await compare(ROUNDS, BLOCK, sides.page.path, sides.page.floor));
// What the HTTP hop alone costs: the floor above beside its GetItem made with no server between.
row('floor GET /v1/track/{token} vs its bare GetItem', await compare(ROUNDS, BLOCK, sides.view.floor, bareGetItem));
console.log(`\nLoad average (1 / 5 / 15 min) on ${availableParallelism()} cores: ${loadBefore} before, ${load()} after.`);

const page = await sides.page.path();
const json = await sides.view.path();
const fetches = (page.match(/<(script|img|iframe|link rel="stylesheet"|object|embed)\b|url\(|@import/gi) ?? []).length;
console.log(`\nTracking page (on the way, with position drawing): ${Buffer.byteLength(page)} bytes (${(Buffer.byteLength(page) / 1024).toFixed(1)} KiB) of HTML with inline CSS and SVG; subresources to fetch: ${fetches}. JSON view: ${Buffer.byteLength(json)} bytes. Floor bodies: ${recorded[pagePath]!.body.length} and ${recorded[viewPath]!.body.length} bytes.`);

await floorServer.close();
await stack.stop();
