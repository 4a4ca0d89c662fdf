import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { markRunStart, recordedCalls, staleRecording, startCallRecording } from '../../support/aws-calls-run.ts';

const artifacts = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aws-calls-run-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

describe('the recording the IAM check reads', () => {
  it('is the last vitest run’s when that run started recording', () => {
    const dir = artifacts();
    const calls = startCallRecording(markRunStart(dir), dir);
    writeFileSync(join(calls, '1.jsonl'), `${JSON.stringify({ fn: 'orders', action: 'dynamodb:GetItem', resource: { kind: 'dynamodb-table', setting: 'TABLE_NAME' } })}\n`);
    expect(staleRecording(dir)).toBeUndefined();
    expect(recordedCalls(calls)).toHaveLength(1);
  });

  it('is refused when a later vitest run stopped before recording, or no run was marked', () => {
    const dir = artifacts();
    expect(staleRecording(dir)).toContain('no vitest run');
    startCallRecording(markRunStart(dir), dir);
    // The next run's global setup failed after marking the run (DynamoDB Local did not start, say).
    markRunStart(dir);
    expect(staleRecording(dir)).toMatch(/older than the last vitest run \(started \d{4}-\d\d-\d\dT/);
  });

  it('is refused when it carries no run at all (recorded before runs were marked)', () => {
    const dir = artifacts();
    const calls = startCallRecording(markRunStart(dir), dir);
    rmSync(join(calls, 'run.json'));
    expect(staleRecording(dir)).toContain('older than the last vitest run');
  });
});
