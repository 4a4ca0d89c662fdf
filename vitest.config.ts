import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.ts';
import { WAIT_LIMIT_MS } from './test/support/wait-limit.ts';

/**
 * Workers: one more than the cores. vitest's default is one fewer (one worker on two cores, the
 * whole run in a row), but most files spend their time waiting on DynamoDB Local, child
 * processes and their own stand-ins rather than computing. VITEST_MAX_WORKERS overrides it.
 */
const workers = Number(process.env.VITEST_MAX_WORKERS) || availableParallelism() + 1;

/**
 * DynamoDB Local without the JVM's optimizing compiler (C2): the run is bound by CPU, and C2's
 * compile threads cost more than they save in a DynamoDB Local that lives a few minutes. Set here,
 * in the main process, so the global setup's and every file's own DynamoDB Local inherit it.
 */
process.env.DYNAMODB_LOCAL_JAVA_OPTS ??= '-XX:TieredStopAtLevel=1';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Every file's worker and DynamoDB Local CPU: test-artifacts/file-cpu.json (docs/testing.md).
    setupFiles: ['test/support/record-aws-calls.ts', 'test/support/file-cpu-setup.ts', 'test/support/file-database-setup.ts', 'test/support/env-restore-setup.ts'],
    // Limits that only end a test that is stuck: a file that takes 5 s alone took 40-200 s at
    // load 20-45 (issue 37), and a limit a loaded machine reaches fails a good run.
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // expect.poll waits as the suite's own helpers do (vitest's default gives up after 1 s).
    expect: { poll: { timeout: WAIT_LIMIT_MS, interval: 100 } },
    pool: 'forks',
    // A worker's files share its process: loading the handlers, the AWS SDK and the stack once per
    // worker instead of once per file took the workers' CPU from 538 s to 330 s a run. What a file
    // leaves behind is put back: its environment (test/support/env-restore-setup.ts); its stack's
    // clients, ports and log level are set anew by the next stack (infra/local/stack.ts).
    poolOptions: { forks: { isolate: false } },
    maxWorkers: workers,
    minWorkers: workers,
    // The longest files first (test/support/file-seconds.json), so none of them starts last.
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
    // Handlers log JSON lines at INFO in the cloud; in tests only warnings, unless a test asks.
    // DynamoDB Local shares 2 cores with a parallel run: a table call may take seconds (the
    // cloud's limit is 3 s, shared/config.ts); test/e2e/table-unavailable.test.ts sets its own.
    // Opening the connection too (1 s in the cloud): under load a worker's connect timer fired
    // before the socket's connect event, and a green run failed with 503s.
    // The billing provider's deadline (8 s) and a webhook attempt's (10 s) likewise: their fake and
    // receivers answer from the same loaded machine, and at load 30-44 four tests saw them pass.
    // The tests of those limits give their own (test/unit/config-defaults.test.ts reads the cloud's).
    env: {
      LOG_LEVEL: 'WARN',
      TABLE_REQUEST_TIMEOUT_MS: '30000',
      TABLE_CONNECT_TIMEOUT_MS: '30000',
      LOCAL_LAMBDA_TIMEOUT_MS: '60000',
      PROVIDER_DEADLINE_MS: '30000',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '30000',
    },
  },
});
