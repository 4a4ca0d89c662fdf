import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { logger, resetLogger } from '../../../shared/logger.ts';

const context = { functionName: 'f', functionVersion: '1', invokedFunctionArn: 'arn:aws:lambda:us-east-1:1:function:f', memoryLimitInMB: '128', awsRequestId: 'r', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

/** What the handler logs at INFO on its second invocation: Powertools sets the level again from the second on. */
const loggedOnSecondCall = async (): Promise<string> => {
  const handler = middy(async () => logger.info('inside the handler')).use(injectLambdaContext(logger, { resetKeys: true }));
  await handler({}, context);
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await handler({}, context);
  } finally {
    process.stdout.write = write;
  }
  return lines.join('');
};

describe('the logger of a process that runs one stack after another', () => {
  it('logs at the LOG_LEVEL of the latest reset, invocation after invocation', async () => {
    process.env.LOG_LEVEL = 'ERROR';
    resetLogger();
    expect(await loggedOnSecondCall()).toBe('');
    process.env.LOG_LEVEL = 'INFO';
    resetLogger();
    expect(logger.getLevelName()).toBe('INFO');
    expect(await loggedOnSecondCall()).toContain('inside the handler');
  });
});
