import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/record-aws-calls.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // Handlers log JSON lines at INFO in the cloud; in tests only warnings, unless a test asks.
    // DynamoDB Local shares 2 cores with a parallel run: a table call may take seconds (the
    // cloud's limit is 3 s, shared/config.ts); test/e2e/table-unavailable.test.ts sets its own.
    // Opening the connection too (1 s in the cloud): under load a worker's connect timer fired
    // before the socket's connect event, and a green run failed with 503s.
    env: { LOG_LEVEL: 'WARN', TABLE_REQUEST_TIMEOUT_MS: '30000', TABLE_CONNECT_TIMEOUT_MS: '30000' },
  },
});
