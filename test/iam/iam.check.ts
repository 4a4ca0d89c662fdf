import { expect, it } from 'vitest';
import { recordedCalls, staleRecording } from '../support/aws-calls-run.ts';
import { checkCalls, formatFinding, summary } from './evaluate.ts';
import { synthTemplate } from './synth-template.ts';

/**
 * The second pass of `npm test` (vitest.iam.config.ts): every AWS call the first pass recorded,
 * evaluated against the role `cdk synth` gives the function that made it. Run alone after a
 * partial test run it reports the grants that run did not use.
 */
it('allows every recorded AWS call and grants nothing no call uses', async () => {
  expect(staleRecording(), 'the recording is not the last vitest run’s').toBeUndefined();
  const calls = recordedCalls();
  expect(calls.length, 'no AWS calls were recorded: run the whole suite first (npm test)').toBeGreaterThan(0);
  const report = await checkCalls(await synthTemplate(), calls);
  console.log(summary(report));
  expect(report.problems, 'calls that could not be checked').toEqual([]);
  expect(report.denied.map(formatFinding), 'calls the deployed role would refuse').toEqual([]);
  expect(report.unused.map(formatFinding), 'grants no recorded call used (least privilege)').toEqual([]);
}, 180_000);
