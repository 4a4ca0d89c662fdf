import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointAtProviderFake } from '../../infra/local/billing-provider.ts';
import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import { startProviderFake, type ProviderFake } from '../support/provider-fake/index.ts';
import { useLocalStack } from '../support/stack.ts';
import { emptySummary, Fuzzer, printSummary } from './harness.ts';

// Set generously so a mutation sent to a rate-limited tenant is judged on its input, not refused early.
const stack = useLocalStack({ env: { TENANT_RATE_LIMIT_PER_MINUTE: '1000000', REFUSED_RATE_LIMIT_PER_MINUTE: '1000000' } });
const runs = Number(process.env.FUZZ_RUNS ?? 1000);

// A deployment with the billing provider configured (the fake): its routes answer as they would.
let fake: ProviderFake;
beforeAll(async () => {
  fake = await startProviderFake();
  fake.setRateLimit(null);
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});

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
    expect(summary.accepted).toBeGreaterThan(0);
  });
});
