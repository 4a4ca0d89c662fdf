import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useLocalStack } from '../support/stack.ts';
import { emptySummary, Fuzzer, printSummary } from './harness.ts';

// Set generously so a mutation sent to a rate-limited tenant is judged on its input, not refused early.
const stack = useLocalStack({ env: { TENANT_RATE_LIMIT_PER_MINUTE: '1000000' } });
const runs = Number(process.env.FUZZ_RUNS ?? 1000);

describe('fuzzing every operation of the OpenAPI document', () => {
  it(`holds the properties over ${runs} generated and broken requests`, { timeout: 30 * 60_000 }, async () => {
    const fuzzer = await Fuzzer.start(stack());
    const summary = emptySummary();
    summary.operations = fuzzer.operationCount;
    await fc.assert(
      fc.asyncProperty(fc.gen(), async (g) => {
        await fuzzer.run((arb) => g(() => arb), summary);
      }),
      { numRuns: runs, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined, endOnFailure: false },
    );
    printSummary(summary);
    expect(summary.failures.slice(0, 20)).toEqual([]);
    // Every operation was reached, and some requests of each kind were accepted.
    expect(summary.accepted).toBeGreaterThan(0);
  });
});
