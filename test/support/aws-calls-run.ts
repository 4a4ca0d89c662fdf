import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedCall } from '../../shared/aws-calls/recorder.ts';

/** The AWS calls of the latest test run, one JSONL file per test process. */
export const awsCallsDir = fileURLToPath(new URL('../../test-artifacts/aws-calls/', import.meta.url));

/** A new run starts with no calls: the check reads only what this run recorded. */
export const startCallRecording = (): string => {
  rmSync(awsCallsDir, { recursive: true, force: true });
  mkdirSync(awsCallsDir, { recursive: true });
  return awsCallsDir;
};

export const recordedCalls = (): RecordedCall[] => {
  if (!existsSync(awsCallsDir)) return [];
  return readdirSync(awsCallsDir)
    .filter((file) => file.endsWith('.jsonl'))
    .flatMap((file) => readFileSync(join(awsCallsDir, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RecordedCall));
};
