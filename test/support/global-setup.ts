import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { markRunStart, startCallRecording } from './aws-calls-run.ts';
import { DynamoPool } from './dynamo-pool.ts';
import { startFileCpu, summarizeFileCpu } from './file-cpu.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The first worker's DynamoDB Local (files written before there was one per worker use it). */
    dynamoEndpoint: string;
    /** One DynamoDB Local per worker: test/support/stack.ts, dynamoEndpoint(). */
    dynamoEndpoints: string[];
    /** Their processes, in the same order: each file's share of its worker's (file-cpu.ts). */
    dynamoPids: number[];
    awsCallsDir: string;
    /** Where a file's stack leases its DynamoDB Local (test/support/dynamo-pool.ts). */
    dynamoPoolUrl: string;
    /** Where the infra tests share their syntheses (test/infra/synth.ts, sharedSynth). */
    infraSynthDir: string;
  }
}

/**
 * One DynamoDB Local (in memory) per worker for the whole run; each test file makes its own table
 * in its worker's. One DynamoDB Local serves its requests nearly one at a time: shared by all
 * workers, a file seeding thousands of items held up every other file's stream reader and queue.
 */
export default async function setup(project: TestProject) {
  // First, before anything here can fail: the IAM check refuses an earlier run's recording.
  const runId = markRunStart();
  const count = Math.max(1, Number(project.vitest.config.maxWorkers) || 1);
  const started = await Promise.allSettled(Array.from({ length: count }, () => startDynamoDbLocal({ sharedDb: false })));
  const dynamos = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(dynamos.map((d) => d.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  project.provide('dynamoEndpoint', dynamos[0]!.endpoint);
  project.provide('dynamoEndpoints', dynamos.map((d) => d.endpoint));
  project.provide('dynamoPids', dynamos.map((d) => d.pid));
  // The stacks' DynamoDB Locals: one file at a time each, started again after many files.
  const pool = new DynamoPool({ maxFiles: Number(process.env.TEST_DYNAMO_FILES_PER_INSTANCE) || 50, maxCpuSeconds: Number(process.env.TEST_DYNAMO_CPU_PER_INSTANCE) || 150, spares: 1 });
  project.provide('dynamoPoolUrl', await pool.listen());
  startFileCpu();
  // Every AWS call of the run is recorded there; `npm test` checks them against IAM afterwards.
  project.provide('awsCallsDir', startCallRecording(runId));
  const infraSynthDir = mkdtempSync(join(tmpdir(), 'delivery-ops-synth-'));
  project.provide('infraSynthDir', infraSynthDir);
  return async () => {
    summarizeFileCpu();
    rmSync(infraSynthDir, { recursive: true, force: true });
    await Promise.all([pool.stop(), ...dynamos.map((d) => d.stop())]);
  };
}
