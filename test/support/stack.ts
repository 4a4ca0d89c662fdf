import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, inject } from 'vitest';
import { localClient } from '../../infra/local/create-table.ts';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../infra/local/stack.ts';

/**
 * Starts the local stack for one test file: the real gateway and handlers, on a table of its
 * own inside the run's DynamoDB Local, so files never see each other's data.
 */
export const useLocalStack = (options: Omit<LocalStackOptions, 'dynamoEndpoint' | 'port'> = {}): (() => LocalStack) => {
  let stack: LocalStack | undefined;
  const tableName = options.tableName ?? `test-${randomUUID()}`;
  beforeAll(async () => {
    stack = await startLocalStack({ ...options, port: 0, dynamoEndpoint: inject('dynamoEndpoint'), tableName });
  });
  afterAll(async () => {
    await stack?.stop();
    // The run's one in-memory DynamoDB Local would otherwise hold every file's data to the end,
    // and the later files slow down as its heap fills. A table the file named is left to it.
    if (stack && !options.tableName) await localClient(inject('dynamoEndpoint')).send(new DeleteTableCommand({ TableName: tableName }));
  });
  return () => {
    if (!stack) throw new Error('the local stack is not started yet');
    return stack;
  };
};
