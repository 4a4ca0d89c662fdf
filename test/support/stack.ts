import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { localClient } from '../../infra/local/create-table.ts';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../infra/local/stack.ts';
import { dynamoEndpoint } from './dynamo-endpoint.ts';

export { dynamoEndpoint };

/**
 * Starts the local stack for one test file: the real gateway and handlers, on a table of its
 * own inside its worker's DynamoDB Local, so files never see each other's data.
 */
export const useLocalStack = (options: Omit<LocalStackOptions, 'dynamoEndpoint' | 'port'> = {}): (() => LocalStack) => {
  let stack: LocalStack | undefined;
  const tableName = options.tableName ?? `test-${randomUUID()}`;
  beforeAll(async () => {
    stack = await startLocalStack({ ...options, port: 0, dynamoEndpoint: dynamoEndpoint(), tableName });
  });
  afterAll(async () => {
    await stack?.stop();
    // The worker's in-memory DynamoDB Local would otherwise hold every file's data to the end,
    // and the later files slow down as its heap fills. A table the file named is left to it.
    if (stack && !options.tableName) await localClient(dynamoEndpoint()).send(new DeleteTableCommand({ TableName: tableName }));
  });
  return () => {
    if (!stack) throw new Error('the local stack is not started yet');
    return stack;
  };
};
