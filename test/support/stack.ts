import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../infra/local/stack.ts';

/**
 * Starts the local stack for one test file: the real gateway and handlers, on a table of its
 * own inside the run's DynamoDB Local, so files never see each other's data.
 */
export const useLocalStack = (options: Omit<LocalStackOptions, 'dynamoEndpoint' | 'port'> = {}): (() => LocalStack) => {
  let stack: LocalStack | undefined;
  beforeAll(async () => {
    stack = await startLocalStack({ ...options, port: 0, dynamoEndpoint: inject('dynamoEndpoint'), tableName: options.tableName ?? `test-${randomUUID()}` });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  return () => {
    if (!stack) throw new Error('the local stack is not started yet');
    return stack;
  };
};
