import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { resetTableClient } from '../../shared/table/client.ts';
import { startProviderFake } from '../../test/support/provider-fake/index.ts';
import { Receiver } from '../../test/support/receiver.ts';
import { ChildStack } from './child-stack.ts';
import { ChaosClient } from './client.ts';
import { checkInvariants, outstanding } from './invariants.ts';
import { scanTable } from './table-scan.ts';
import { round, setUpTenant } from './workload.ts';

export interface ChaosOptions {
  kills: number;
  seed: number;
  /** Rounds each lane makes at least, even when the kills are over sooner. */
  minRounds?: number;
  lanes?: number;
  /** A kill comes this long (uniformly random, in ms) after the stack is up again. */
  killAfterMs?: [number, number];
  settleTimeoutMs?: number;
  /** The share of kills followed by a second one while the stack starts again (default 0.25). */
  killDuringStart?: number;
  log?: (line: string) => void;
  /** Keep the data folder (its path is printed) for a look afterwards. */
  keepData?: boolean;
}

export interface ChaosSummary {
  seed: number;
  kills: number;
  starts: number;
  rounds: number;
  requests: number;
  retried: number;
  serverErrors: number;
  keyedReplayed: number;
  events: number;
  deliveries: number;
  viewsChecked: number;
  invoices: number;
  imports: number;
  settledInMs: number;
  /** Median time from a kill until the stack answered again. */
  restartMedianMs: number;
  outstanding: string[];
  violations: string[];
  seconds: number;
}

/** mulberry32: a small seeded generator, so a run's kill moments repeat with its seed. */
export const seeded = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 12 item 3: the local stack as a child process, killed with SIGKILL (its whole process
 * group) at seeded random moments while a scripted workload runs, restarted on the same data
 * folder each time; then settled and checked. The provider fake and the webhook receiver live
 * in this process, so they outlive every kill and count what really left the stack.
 */
export const runChaos = async (options: ChaosOptions): Promise<ChaosSummary> => {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const random = seeded(options.seed);
  const [killMin, killMax] = options.killAfterMs ?? [500, 8_000];
  const dataDir = mkdtempSync(join(tmpdir(), 'delivery-ops-chaos-'));
  const fake = await startProviderFake();
  fake.setRateLimit(null);
  const receiver = await new Receiver().start();
  const stack = new ChildStack({
    dataDir,
    port: await freePort(),
    env: {
      LOG_LEVEL: 'WARN',
      WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1',
      TENANT_RATE_LIMIT_PER_MINUTE: '1000000',
      // The jobs run often so that the run settles in seconds, not minutes.
      WEBHOOK_SWEEP_SECONDS: '3',
      WEBHOOK_SWEEP_GRACE_SECONDS: '2',
      WEBHOOK_SWEEP_RESEND_SECONDS: '5',
      WEBHOOK_LEASE_SECONDS: '10',
      INVOICE_RECONCILE_SECONDS: '3',
      PROVIDER_API_URL: fake.apiUrl,
      PROVIDER_OAUTH_URL: fake.oauthUrl,
      PROVIDER_APP_ID: fake.appId,
      PROVIDER_REDIRECT_URI: fake.redirectUri,
      PROVIDER_USER_TOKEN: fake.userToken,
    },
    onOutput: (line) => log(`  stack| ${line}`),
  });
  // The driver reads the table directly (set-up and invariants) at whatever port DynamoDB Local has now.
  const pointAtTable = () => {
    Object.assign(process.env, { TABLE_NAME: stack.info!.tableName, DYNAMODB_ENDPOINT: stack.info!.dynamoEndpoint, AWS_REGION: process.env.AWS_REGION ?? 'us-east-1' });
    resetTableClient();
  };
  const deadline = started + 30 * 60_000;
  const client = new ChaosClient(() => stack.baseUrl, () => deadline);
  let kills = 0;
  let rounds = 0;
  const restarts: number[] = [];
  try {
    await stack.start();
    pointAtTable();
    log(`stack up on ${stack.baseUrl}, data in ${dataDir}`);
    const tenant = await setUpTenant(client, stack.baseUrl, fake, receiver.url.replace(/\/hooks$/, ''));

    let killing = true;
    const killer = (async () => {
      try {
        while (kills < options.kills) {
          await sleep(killMin + random() * (killMax - killMin));
          await stack.kill();
          kills++;
          const restartedAt = Date.now();
          // Some kills land while the stack is starting again (table check, stream reader, queue journal).
          if (random() < (options.killDuringStart ?? 0.25) && kills < options.kills) {
            const starting = stack.start().catch(() => undefined);
            await sleep(random() * 8_000);
            await stack.kill();
            await starting;
            kills++;
            log(`kill ${kills} while starting`);
          }
          await stack.start();
          restarts.push(Date.now() - restartedAt);
          log(`kill ${kills} after ${rounds} rounds; back in ${((Date.now() - restartedAt) / 1000).toFixed(1)} s`);
        }
      } finally {
        killing = false;
      }
    })();
    const lane = async (n: number) => {
      for (let i = 0; killing || i < (options.minRounds ?? 1); i++) {
        await round(client, tenant, `L${n}R${i}S${options.seed}`, { importRecords: n === 0 });
        rounds++;
      }
    };
    await Promise.all([killer, ...Array.from({ length: options.lanes ?? 2 }, (_, n) => lane(n))]);
    pointAtTable();

    const settleStart = Date.now();
    let left = outstanding(await scanTable(), tenant, receiver.received);
    while (left.length > 0 && Date.now() - settleStart < (options.settleTimeoutMs ?? 120_000)) {
      await sleep(1_000);
      left = outstanding(await scanTable(), tenant, receiver.received);
    }
    const settledInMs = Date.now() - settleStart;
    const report = await checkInvariants(client, tenant, fake, receiver.received);
    return {
      seed: options.seed,
      kills,
      starts: stack.starts,
      rounds,
      ...client.counts,
      keyedReplayed: report.replays,
      events: report.events,
      deliveries: report.deliveries,
      viewsChecked: report.viewsChecked,
      invoices: report.invoices,
      imports: report.imports,
      settledInMs,
      restartMedianMs: [...restarts].sort((a, b) => a - b)[Math.floor(restarts.length / 2)] ?? 0,
      outstanding: left,
      violations: [...left.map((l) => `not settled: ${l}`), ...report.violations],
      seconds: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await stack.stop().catch(() => stack.kill());
    await receiver.stop();
    await fake.stop();
    resetTableClient();
    if (options.keepData) log(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
};
