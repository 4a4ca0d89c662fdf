import autocannon from 'autocannon';
import { percentile, timed } from '../support/stats.ts';
import { floorSteps } from './floor.ts';
import { mixRequests, type Tally } from './mix.ts';
import type { LoadTenant } from './seed.ts';

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors and timeouts (autocannon's own count, beside the tally's answers). */
  failures: number;
  requests: number;
}

/** The mix through the gateway with autocannon, `connections` clients for `seconds` (or `amount` requests in all). */
export const driveMix = async (options: { baseUrl: string; tenants: LoadTenant[]; tally: Tally; connections: number; seconds?: number; amount?: number }): Promise<Measured> => {
  const result = await autocannon({
    url: options.baseUrl,
    connections: options.connections,
    // A number of requests instead of a duration: the smoke test runs whole cycles whatever the machine's speed.
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds }),
    timeout: 20,
    requests: mixRequests(options.tenants, options.tally),
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, failures: result.errors + result.timeouts, requests: result.requests.total };
};

/**
 * The floor at the same concurrency: `connections` loops, each going through the mix's table
 * calls made directly, tenants taking turns per cycle, for `seconds`.
 */
export const driveFloor = async (options: { tenants: LoadTenant[]; connections: number; seconds: number }): Promise<Measured> => {
  const samples: number[] = [];
  const cycles = options.tenants.map(floorSteps);
  const end = Date.now() + options.seconds * 1000;
  let turn = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (Date.now() < end) for (const step of cycles[turn++ % cycles.length]) samples.push(await timed(step));
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { rps: samples.length / seconds, p50: percentile(samples, 50), p99: percentile(samples, 99), failures: 0, requests: samples.length };
};
