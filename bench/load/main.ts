import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resetTableClient } from '../../shared/table/client.ts';
import { fmt } from '../support/stats.ts';
import { driveFloor, driveMix } from './drive.ts';
import { checkEffects } from './effects.ts';
import { breakOf, kneeOf, type StepResult } from './knee.ts';
import { Tally } from './mix.ts';
import { loadAverage } from './processes.ts';
import { LoadReceiver } from './receiver.ts';
import { seedTenants } from './seed.ts';
import { soak } from './soak.ts';
import { startStackChild } from './stack-child.ts';

/**
 * `npm run load` (`-- --soak` adds the soak): the mix through the local gateway at rising
 * concurrency beside its floor, the knee, then every effect checked (docs/performance.md).
 */
const { values } = parseArgs({ options: { soak: { type: 'boolean', default: false } } });
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TENANTS = env('LOAD_TENANTS', 8);
const STEP_SECONDS = env('LOAD_STEP_SECONDS', 15);
const MAX_CONNECTIONS = env('LOAD_MAX_CONNECTIONS', 256);
// LOAD_LADDER=16,64 measures exactly those steps, past a break too (to look at one concurrency closely).
const chosen = process.env.LOAD_LADDER?.split(',').map(Number);
const ladder = chosen ?? Array.from({ length: Math.floor(Math.log2(MAX_CONNECTIONS)) + 1 }, (_, i) => 2 ** i);
const SOAK_SECONDS = env('LOAD_SOAK_SECONDS', 600);
const SAMPLE_SECONDS = env('LOAD_SAMPLE_SECONDS', 15);

const dataDir = mkdtempSync(join(tmpdir(), 'delivery-ops-load-'));
const stack = await startStackChild(dataDir);
// The seed and the floor reach the same DynamoDB Local table directly.
Object.assign(process.env, { TABLE_NAME: stack.tableName, DYNAMODB_ENDPOINT: stack.dynamoEndpoint, AWS_REGION: process.env.AWS_REGION ?? 'us-east-1' });
resetTableClient();
const receiver = await new LoadReceiver().start();
const mint = async (subject: string, mfa: boolean): Promise<string> =>
  (await (await fetch(`${stack.baseUrl}/_local/token`, { method: 'POST', body: JSON.stringify({ subject, mfa, ttlSeconds: 12 * 3600 }) })).json()).token;
const tenants = await seedTenants({ baseUrl: stack.baseUrl, mint }, TENANTS, receiver);
const tally = new Tally();

let failed = false;
try {
  // Warm-up: every group's module imported, JIT and DynamoDB Local warm; not reported.
  await driveMix({ baseUrl: stack.baseUrl, tenants, tally, connections: 4, seconds: 10 });
  await driveFloor({ tenants, connections: 4, seconds: 5 });
  const warmupErrors = tally.total('errors');

  console.log(`\nMixed workload through the local gateway (${TENANTS} tenants, ${STEP_SECONDS} s per step), beside its floor at the same concurrency\n`);
  console.log('| connections | req/s | p50 ms | p99 ms | errors (non-429) | 429s | floor req/s | floor p50 ms | floor p99 ms | req/s / floor | load avg |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const steps: StepResult[] = [];
  const errorSamples = [...tally.samples];
  for (const connections of ladder) {
    tally.reset();
    const mix = await driveMix({ baseUrl: stack.baseUrl, tenants, tally, connections, seconds: STEP_SECONDS });
    const loadAvg = loadAverage();
    const floor = await driveFloor({ tenants, connections, seconds: STEP_SECONDS });
    const step: StepResult = { connections, rps: mix.rps, p50: mix.p50, p99: mix.p99, errors: tally.total('errors') + mix.failures, limited: tally.total('limited'), requests: mix.requests, floor, loadAverage: loadAvg };
    steps.push(step);
    errorSamples.push(...tally.samples.splice(0));
    console.log(`| ${connections} | ${mix.rps.toFixed(0)} | ${mix.p50} | ${mix.p99} | ${step.errors} | ${step.limited} | ${floor.rps.toFixed(0)} | ${fmt(floor.p50)} | ${fmt(floor.p99)} | ${(mix.rps / floor.rps).toFixed(2)} | ${loadAvg.toFixed(2)} |`);
    if (!chosen && breakOf(step, steps.at(-2))) break;
  }

  const { knee, broke } = kneeOf(steps);
  console.log('');
  if (knee) {
    console.log(`knee: ${knee.connections} connections, ${knee.rps.toFixed(0)} req/s, p50 ${knee.p50} ms, p99 ${knee.p99} ms, ${knee.errors} errors (non-429) in ${knee.requests} requests (${((100 * knee.errors) / Math.max(1, knee.requests)).toFixed(2)} %), ${knee.limited} 429s`);
    console.log(`floor at the knee: ${knee.floor!.rps.toFixed(0)} req/s, p50 ${fmt(knee.floor!.p50)} ms, p99 ${fmt(knee.floor!.p99)} ms; path / floor throughput ${(knee.rps / knee.floor!.rps).toFixed(2)}, p50 ${(knee.p50 / knee.floor!.p50).toFixed(2)}x`);
  } else console.log('knee: none, the first step already broke');
  if (broke) console.log(`broke at ${broke.step.connections} connections: ${broke.why}`);
  const errors = warmupErrors + steps.reduce((sum, s) => sum + s.errors, 0);
  if (errorSamples.length > 0) console.log(`\nerrors (non-429), first ${errorSamples.length}:\n  ${errorSamples.join('\n  ')}`);

  let soakFlat = true;
  if (values.soak) {
    const connections = Number(process.env.LOAD_SOAK_CONNECTIONS ?? knee?.connections ?? 1);
    tally.reset();
    const result = await soak({ baseUrl: stack.baseUrl, tenants, tally, connections, seconds: SOAK_SECONDS, every: SAMPLE_SECONDS, memory: stack.memory });
    soakFlat = result.trends.every((t) => t.flat);
    if (tally.samples.length > 0) console.log(`soak errors (non-429), first ${tally.samples.length}:\n  ${tally.samples.join('\n  ')}`);
    failed ||= tally.total('errors') + result.measured.failures > 0;
  }

  const effects = await checkEffects({ tenants, tally, receiver });
  failed ||= errors > 0 || !effects.ok || !soakFlat;
} finally {
  await receiver.stop();
  await stack.stop();
  resetTableClient();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
