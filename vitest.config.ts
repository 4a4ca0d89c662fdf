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
    // cloud's limit is 3 s, shared/config.ts); test/e2e/table-hung.test.ts sets its own.
    env: { LOG_LEVEL: 'WARN', TABLE_REQUEST_TIMEOUT_MS: '30000' },
  },
});
