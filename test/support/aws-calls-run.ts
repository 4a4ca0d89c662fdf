import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedCall } from '../../shared/aws-calls/recorder.ts';

/** Test artifacts: the AWS calls of the latest test run, one JSONL file per test process, beside the run's mark. */
const artifactsDir = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
export const awsCallsDir = join(artifactsDir, 'aws-calls');

/** Which run a file belongs to: the last `vitest run` started, and the run the recording is of. */
const LAST_RUN = 'last-vitest-run.json';
const RECORDING_RUN = 'run.json';

/**
 * Marks a new `vitest run` (the global setup's first step, before anything in it can fail).
 * Returns the run's id.
 */
export const markRunStart = (dir = artifactsDir): string => {
  const id = randomUUID();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, LAST_RUN), JSON.stringify({ id, startedAt: new Date().toISOString() }));
  return id;
};

/** A new run starts with no calls: the check reads only what this run recorded. */
export const startCallRecording = (runId: string, dir = artifactsDir): string => {
  const calls = join(dir, 'aws-calls');
  rmSync(calls, { recursive: true, force: true });
  mkdirSync(calls, { recursive: true });
  writeFileSync(join(calls, RECORDING_RUN), JSON.stringify({ id: runId }));
  return calls;
};

const runIn = (file: string): { id?: string; startedAt?: string } => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});

/**
 * Why the recording cannot be checked as the last run's, if it cannot: a later `vitest run`
 * stopped before it started recording (DynamoDB Local did not start, say), so the calls on disk
 * are an earlier run's and would pass or fail the check for code that has changed since.
 */
export const staleRecording = (dir = artifactsDir): string | undefined => {
  const last = runIn(join(dir, LAST_RUN));
  if (!last.id) return 'no vitest run has been marked: run the suite first (npm test)';
  if (runIn(join(dir, 'aws-calls', RECORDING_RUN)).id !== last.id) {
    return `the recording is older than the last vitest run (started ${last.startedAt}), which recorded nothing: run the suite again (npm test)`;
  }
  return undefined;
};

export const recordedCalls = (dir = awsCallsDir): RecordedCall[] => {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedCall));
};
