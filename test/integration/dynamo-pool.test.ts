import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { DynamoPool } from '../support/dynamo-pool.ts';
import { processCpuSeconds } from '../support/file-cpu.ts';
import { WAIT_LIMIT_MS } from '../support/wait-limit.ts';

const gone = async (pid: number) => {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (Date.now() < deadline && processCpuSeconds(pid) !== null) await new Promise((r) => setTimeout(r, 50));
  return processCpuSeconds(pid) === null;
};

// The pool the test stacks lease their DynamoDB Locals from (docs/testing.md): a file that shared
// one with a file running beside it, or kept one past its limit, would see another file's load.
describe('the test stacks’ DynamoDB Local pool', () => {
  const pool = new DynamoPool({ maxFiles: 2, maxCpuSeconds: 1_000, spares: 1 });
  afterAll(() => pool.stop());

  it('lends one instance to one file at a time, lends it again, and replaces it after its last file', async () => {
    await pool.listen();
    const [a, b] = await Promise.all([pool.lease(), pool.lease()]);
    expect(a.endpoint).not.toBe(b.endpoint);
    expect((await pool.release(a.endpoint)).cpuSeconds).toBeGreaterThanOrEqual(0);
    const again = await pool.lease();
    expect(again.endpoint).toBe(a.endpoint);
    // Its second file: stopped, and the next file gets another.
    await pool.release(again.endpoint);
    expect(await gone(a.pid)).toBe(true);
    const next = await pool.lease();
    expect([a.endpoint, b.endpoint]).not.toContain(next.endpoint);
    await pool.release(b.endpoint);
    await pool.release(next.endpoint);
  }, 240_000);

  it('keeps each file’s tables in a database of its own: another access key does not see them', async () => {
    const lease = await pool.lease();
    const as = (accessKeyId: string) => new DynamoDBClient({ endpoint: lease.endpoint, region: 'us-east-1', credentials: { accessKeyId, secretAccessKey: 'local' } });
    await as('fileA').send(
      new CreateTableCommand({ TableName: 'orders', BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] }),
    );
    expect((await as('fileA').send(new ListTablesCommand({}))).TableNames).toEqual(['orders']);
    expect((await as('fileB').send(new ListTablesCommand({}))).TableNames).toEqual([]);
    await pool.release(lease.endpoint);
  }, 240_000);

  it('leaves no DynamoDB Local running once stopped', async () => {
    const lease = await pool.lease();
    await pool.stop();
    expect(await gone(lease.pid)).toBe(true);
  }, 240_000);
});
