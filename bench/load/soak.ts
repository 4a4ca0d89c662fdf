import { driveMix } from './drive.ts';
import type { Tally } from './mix.ts';
import { loadAverage } from './processes.ts';
import type { LoadTenant } from './seed.ts';
import type { MemorySample } from './stack-child.ts';
import { trendOf } from './trend.ts';

export interface SoakSample extends MemorySample {
  at: number;
  loadAverage: number;
}

const mb = (bytes?: number) => (bytes === undefined ? '-' : (bytes / 2 ** 20).toFixed(1));

/**
 * The mix at one concurrency for `seconds`, sampling each process's memory every `every`
 * seconds (the gateway's RSS and its heap after a full GC, DynamoDB Local's RSS), then the
 * series and the trend of each.
 */
export const soak = async (options: {
  baseUrl: string;
  tenants: LoadTenant[];
  tally: Tally;
  connections: number;
  seconds: number;
  every: number;
  memory(): Promise<MemorySample>;
}) => {
  const samples: SoakSample[] = [];
  const start = Date.now();
  const sample = async () => {
    const s: SoakSample = { at: (Date.now() - start) / 1000, loadAverage: loadAverage(), ...(await options.memory()) };
    samples.push(s);
    // Live, so a long soak shows where it goes before it ends.
    console.log(`soak ${s.at.toFixed(0)} s: gateway RSS ${mb(s.rss)} MiB, heap after GC ${mb(s.heapUsed)} MiB, DynamoDB Local RSS ${mb(s.dynamoRss)} MiB, load avg ${s.loadAverage.toFixed(2)}`);
  };
  await sample();
  const timer = setInterval(() => void sample(), options.every * 1000);
  const measured = await driveMix({ ...options }).finally(() => clearInterval(timer));
  await sample();

  console.log(`\nSoak: ${options.connections} connections for ${options.seconds} s, memory every ${options.every} s\n`);
  console.log('| s | gateway RSS MiB | gateway heap after GC MiB | DynamoDB Local RSS MiB | load avg |');
  console.log('|---|---|---|---|---|');
  for (const s of samples) console.log(`| ${s.at.toFixed(0)} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${mb(s.dynamoRss)} | ${s.loadAverage.toFixed(2)} |`);
  const series = {
    'gateway RSS': samples.map((s) => ({ at: s.at, value: s.rss ?? 0 })),
    'gateway heap after GC': samples.map((s) => ({ at: s.at, value: s.heapUsed })),
    'DynamoDB Local RSS': samples.map((s) => ({ at: s.at, value: s.dynamoRss ?? 0 })),
  };
  console.log('\n| process | slope MiB/min (after warm-up) | last third over middle third | flat (< 2 %) |');
  console.log('|---|---|---|---|');
  const trends = Object.entries(series).map(([name, points]) => {
    const trend = trendOf(points);
    console.log(`| ${name} | ${(trend.perMinute / 2 ** 20).toFixed(2)} | ${(trend.growth * 100).toFixed(1)} % | ${trend.flat ? 'yes' : 'NO'} |`);
    return { name, ...trend };
  });
  console.log(`\nsoak: ${measured.requests} requests, ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, errors (non-429) ${options.tally.total('errors') + measured.failures}, 429s ${options.tally.total('limited')}`);
  return { measured, samples, trends };
};
