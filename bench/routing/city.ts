import { createHash, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startLocalStack } from '../../infra/local/stack.ts';
import { newId } from '../../shared/ids.ts';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { cityFleet, cityOrders, DEPOT, SHIFT } from './city-day.ts';

/**
 * `npm run bench:routing -- --city`: one synthetic Santiago day (bench/routing/city-day.ts)
 * planned through the real path on the local stack: the depot, the fleet and the orders through
 * the API, then POST /v1/routing/previews, the preview queue's stand-in and the worker with the
 * optimizer, polled until the preview is ready. The worker runs in this process (as every local
 * stand-in does), so the process's peak RSS from the POST to `ready` is an upper bound of the
 * worker's: it also holds the gateway and this client (DynamoDB Local is a JVM of its own and not
 * counted). The solve's budget is CPU seconds: on a busy machine `ready` comes later in wall time,
 * so the process's CPU time is printed beside it.
 */
const usage = `--city [--orders 1000] [--seed 1] [--date 2026-12-01] [--time-limit <s>] [--concurrency 8]`;

const hms = (seconds: number): string => `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Runs `task` over `items` with at most `limit` running at once, in order of the items. */
const bounded = async <T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
};

/**
 * The process's peak resident memory between start() and stop(), sampled every 100 ms from a
 * worker thread: the local worker solves on the main thread, synchronously, so a timer there
 * would not fire during the solve. RSS bounds the heap, and it is what Lambda's memory size limits.
 */
const SAMPLER = `
const { parentPort } = require('node:worker_threads');
let peak = 0;
const sample = () => { peak = Math.max(peak, process.memoryUsage.rss()); };
sample();
const timer = setInterval(sample, 100);
parentPort.on('message', () => { clearInterval(timer); sample(); parentPort.postMessage(peak); });
`;
const memorySampler = () => {
  const thread = new Worker(SAMPLER, { eval: true });
  return {
    stop: async (): Promise<number> => {
      const peak = new Promise<number>((resolve) => thread.once('message', resolve));
      thread.postMessage('stop');
      const value = await peak;
      await thread.terminate();
      return value;
    },
  };
};

export async function runCity(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--city'),
    options: {
      orders: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      date: { type: 'string', default: '2026-12-01' },
      'time-limit': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
    },
    strict: true,
  });
  const count = Number(values.orders);
  const seed = Number(values.seed);
  const concurrency = Number(values.concurrency);
  const timeLimitSeconds = values['time-limit'] === undefined ? undefined : Number(values['time-limit']);
  if (![count, seed, concurrency].every(Number.isInteger) || count < 1 || count > 1000) throw new Error(`usage: ${usage}`);

  process.env.LOG_LEVEL ??= 'WARN';
  const stack = await startLocalStack({ port: 0, env: { TENANT_RATE_LIMIT_PER_MINUTE: '100000000' } });
  try {
    const tenantId = newId();
    await putTenant({ id: tenantId, name: 'Distribuidora Santiago SpA', timeZone: 'America/Santiago' });
    await putMember({ tenantId, subject: 'bench-admin', role: 'admin', firstName: 'Bea' });
    const token = await stack.devIssuer.mint({ subject: 'bench-admin', ttlSeconds: 7200 });
    const api = async (method: string, path: string, body?: unknown): Promise<any> => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await response.json();
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json;
    };

    /**
     * The local worker solves on this process's main thread, so the gateway answers nothing
     * meanwhile: a read caught by the solve may time out on its table call (503), and afterwards
     * the server's keep-alive timers close idle sockets the client may just be reusing
     * (ECONNRESET). A read is safe to repeat.
     */
    const read = async (id: string, attempts = 5): Promise<any> => {
      try {
        return await api('GET', `/v1/routing/previews/${id}`);
      } catch (error) {
        const transient = error instanceof TypeError || / 503 /.test((error as Error).message);
        if (attempts <= 1 || !transient) throw error;
        return read(id, attempts - 1);
      }
    };

    const orders = cityOrders(count, seed, values.date);
    const fleet = cityFleet();
    const seeding = performance.now();
    const depot = await api('POST', '/v1/routing/depots', DEPOT);
    const vehicles = await bounded(fleet, concurrency, (vehicle) => api('POST', '/v1/fleet/vehicles', vehicle));
    const orderIds = (await bounded(orders, concurrency, (order) => api('POST', '/v1/distribution/orders', order))).map((o) => o.id as string);
    const seededSeconds = (performance.now() - seeding) / 1000;
    const weight = orders.reduce((sum, o) => sum + o.load.weightKg, 0);
    const volume = orders.reduce((sum, o) => sum + o.load.volumeM3, 0);
    console.log(`Santiago day ${values.date}, seed ${seed}: ${count} orders (${orders.filter((o) => o.timeWindows.length > 0).length} with a 2-hour window; ${(weight / 1000).toFixed(1)} t, ${volume.toFixed(0)} m³), ` +
      `${fleet.length} vehicles (${(fleet.reduce((s, v) => s + v.capacity.weightKg, 0) / 1000).toFixed(0)} t), depot ${DEPOT.name}; seeded through the API in ${seededSeconds.toFixed(1)} s`);

    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    const memory = memorySampler();
    const cpuBefore = process.cpuUsage();
    const posted = performance.now();
    let preview = await api('POST', '/v1/routing/previews', {
      serviceDate: values.date,
      depotId: depot.id,
      orderIds,
      vehicles: vehicles.map((v) => ({ vehicleId: v.id, ...SHIFT })),
      objective: 'duration',
      seed,
      ...(timeLimitSeconds === undefined ? {} : { timeLimitSeconds }),
    });
    // The sweeper fails a preview 5 minutes past its limit; a loaded machine may stretch even that.
    const deadline = posted + (preview.solver.timeLimitSeconds + 900) * 1000;
    while (preview.state === 'queued' || preview.state === 'solving') {
      if (performance.now() > deadline) throw new Error(`preview ${preview.id} still ${preview.state} after ${((performance.now() - posted) / 1000).toFixed(0)} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      preview = await read(preview.id);
    }
    const readySeconds = (performance.now() - posted) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const peakRss = await memory.stop();

    console.log(`preview ${preview.id}: ${preview.state} ${readySeconds.toFixed(1)} s after the POST (time limit ${preview.solver.timeLimitSeconds} s; the process used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU meanwhile)`);
    if (preview.state !== 'ready') {
      console.log(`failure: ${JSON.stringify(preview.failure)}`);
      process.exitCode = 1;
      return;
    }
    const routes = preview.routes as Array<{ vehicleId: string; stops: Array<{ orderId: string }> }>;
    const placed = [...routes.flatMap((r) => r.stops.map((s) => s.orderId)), ...preview.unassigned.map((u: { orderId: string }) => u.orderId)];
    const accounted = new Set(placed).size === placed.length && placed.length === count && orderIds.every((id) => placed.includes(id));
    const reasons = new Map<string, number>();
    for (const u of preview.unassigned as Array<{ reasons: Array<{ code: string }> }>) for (const r of u.reasons) reasons.set(r.code, (reasons.get(r.code) ?? 0) + 1);
    const trucks = new Set(vehicles.filter((v) => v.class === 'cargo').map((v) => v.id as string));
    const { totals, solver } = preview;
    // Ids are new on every run: the routes by the orders' and vehicles' places in the day, so two runs compare.
    const orderIndex = new Map(orderIds.map((id, i) => [id, i]));
    const vehicleIndex = new Map(vehicles.map((v, i) => [v.id as string, i]));
    const routesHash = createHash('sha256')
      .update(JSON.stringify(routes.map((r) => [vehicleIndex.get(r.vehicleId), ...r.stops.map((s) => orderIndex.get(s.orderId))])))
      .digest('hex');
    console.log(
      [
        `routes ${totals.routeCount} (${routes.filter((r) => trucks.has(r.vehicleId)).length} trucks), assigned ${totals.assignedCount}, unassigned ${totals.unassignedCount}` +
          (reasons.size ? ` (${[...reasons].map(([code, n]) => `${code} ${n}`).join(', ')})` : ''),
        `every order in exactly one route or unassigned: ${accounted ? 'yes' : 'NO'}`,
        `total distance ${(totals.distanceMeters / 1000).toFixed(1)} km, total duration ${hms(totals.durationSeconds)}, longest route ${Math.max(...routes.map((r) => r.stops.length))} stops`,
        `solver ${solver.name} ${solver.version}: elapsedMs ${solver.elapsedMs}${solver.stoppedBy ? `, stopped by ${solver.stoppedBy}` : ''}`,
        `routes hash ${routesHash} (sha256 of [vehicle, ...orders] per route, by their places in the day: the same for the same day, seed and budget)`,
        `bench process (gateway + worker + client): peak RSS ${mb(peakRss)} from the POST to ready (sampled every 100 ms from a thread); ` +
          `the kernel's maxRSS ${mb(maxRssBefore)} before the POST, ${mb(process.resourceUsage().maxRSS * 1024)} after; heap used now ${mb(process.memoryUsage().heapUsed)}`,
      ].join('\n'),
    );
    if (!accounted) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCity(process.argv.slice(2));
