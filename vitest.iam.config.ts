import { defineConfig } from 'vitest/config';

/**
 * The IAM check, run after the whole suite (`npm test`): it reads the AWS calls the first pass
 * recorded under test-artifacts/aws-calls/, so it has no global setup that would start a new run.
 */
export default defineConfig({
  test: {
    include: ['test/iam/**/*.check.ts'],
    testTimeout: 180_000,
    pool: 'forks',
  },
});
