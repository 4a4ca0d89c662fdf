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
  // TEST_DYNAMO_PER_FILE=1: the file's stack starts a DynamoDB Local of its own and stops it with
  // the stack. A worker's DynamoDB Local keeps every stream record of every file before (a deleted
  // table's too), and its stream reads cost more with each (docs/testing.md, issue 29 item 10):
  // late files took 5-10 times their time alone. TEST_DYNAMO_PER_FILE=0 shares the worker's again.
  const ownDynamo = process.env.TEST_DYNAMO_PER_FILE !== '0';
  beforeAll(async () => {
    stack = await startLocalStack({ ...options, port: 0, dynamoEndpoint: ownDynamo ? undefined : dynamoEndpoint(), tableName });
  });
  afterAll(async () => {
    await stack?.stop();
    // The worker's in-memory DynamoDB Local would otherwise hold every file's data to the end,
    // and the later files slow down as its heap fills. A table the file named is left to it.
    if (stack && !ownDynamo && !options.tableName) await localClient(dynamoEndpoint()).send(new DeleteTableCommand({ TableName: tableName }));
  });
  return () => {
    if (!stack) throw new Error('the local stack is not started yet');
    return stack;
  };
};
