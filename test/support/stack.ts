import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { localClient } from '../../infra/local/create-table.ts';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../infra/local/stack.ts';
import type { DynamoLease } from './dynamo-pool.ts';
import { dynamoEndpoint } from './dynamo-endpoint.ts';
import { noteFileDynamoCpu } from './file-cpu.ts';

export { dynamoEndpoint };

const pool = async <T>(path: string, body?: unknown): Promise<T> => {
  const answer = await fetch(`${inject('dynamoPoolUrl')}${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) });
  if (!answer.ok) throw new Error(`the DynamoDB Local pool answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as T;
};

/**
 * Starts the local stack for one test file: the real gateway and handlers, on a table of its
 * own inside a DynamoDB Local that no file running beside it uses.
 *
 * Where that DynamoDB Local comes from (docs/testing.md): by default the run's pool lends one
 * (test/support/dynamo-pool.ts), used by a few files in turn and then started afresh;
 * TEST_DYNAMO_PER_FILE=1 starts one for the file alone; =0 uses its worker's for the whole run.
 */
export const useLocalStack = (options: Omit<LocalStackOptions, 'dynamoEndpoint' | 'port'> = {}): (() => LocalStack) => {
  let stack: LocalStack | undefined;
  let lease: DynamoLease | undefined;
  const tableName = options.tableName ?? `test-${randomUUID()}`;
  const mode = process.env.TEST_DYNAMO_PER_FILE === '1' ? 'own' : process.env.TEST_DYNAMO_PER_FILE === '0' ? 'worker' : 'pool';
  beforeAll(async () => {
    if (mode === 'pool') lease = await pool<DynamoLease>('/lease');
    const endpoint = mode === 'own' ? undefined : (lease?.endpoint ?? dynamoEndpoint());
    stack = await startLocalStack({ ...options, port: 0, dynamoEndpoint: endpoint, tableName });
  });
  afterAll(async () => {
    await stack?.stop();
    try {
      // The next file would otherwise find this one's data in the DynamoDB Local's heap. A table
      // the file named is left to it.
      if (stack && mode !== 'own' && !options.tableName) await localClient(stack.dynamoEndpoint).send(new DeleteTableCommand({ TableName: tableName }));
    } finally {
      if (lease) noteFileDynamoCpu((await pool<{ cpuSeconds: number | null }>('/release', { endpoint: lease.endpoint })).cpuSeconds);
    }
  });
  return () => {
    if (!stack) throw new Error('the local stack is not started yet');
    return stack;
  };
};
