import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { markRunStart, startCallRecording } from './aws-calls-run.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    awsCallsDir: string;
    /** Where the infra tests share their syntheses (test/infra/synth.ts, sharedSynth). */
    infraSynthDir: string;
  }
}

/** One DynamoDB Local (in memory) for the whole run; each test file makes its own table in it. */
export default async function setup(project: TestProject) {
  // First, before anything here can fail: the IAM check refuses an earlier run's recording.
  const runId = markRunStart();
  const dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  // Every AWS call of the run is recorded there; `npm test` checks them against IAM afterwards.
  project.provide('awsCallsDir', startCallRecording(runId));
  const infraSynthDir = mkdtempSync(join(tmpdir(), 'delivery-ops-synth-'));
  project.provide('infraSynthDir', infraSynthDir);
  return async () => {
    rmSync(infraSynthDir, { recursive: true, force: true });
    await dynamo.stop();
  };
}
