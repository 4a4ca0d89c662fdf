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
    env: { LOG_LEVEL: 'WARN' },
  },
});
