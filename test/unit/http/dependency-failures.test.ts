import { Agent } from 'node:http';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { describe, expect, it } from 'vitest';
import { problemResult } from '../../../shared/http/problem.ts';

/**
 * Failures on the way to an AWS service that are the platform's, not the request's: the real SDK
 * client raises them, and the request chain's mapping must answer 503 with Retry-After.
 */
const failureOf = async (client: DynamoDBClient): Promise<unknown> => {
  try {
    await client.send(new GetItemCommand({ TableName: 'orders', Key: { pk: { S: 'T#1' }, sk: { S: 'TENANT' } } }));
  } catch (error) {
    return error;
  } finally {
    client.destroy();
  }
  throw new Error('the call succeeded');
};

const expectUnavailable = (error: unknown) => {
  const result = problemResult(error, 'req-1');
  expect(result.statusCode, String(error)).toBe(503);
  expect(result.headers!['content-type']).toBe('application/problem+json');
  expect(JSON.parse(result.body!)).toMatchObject({ status: 503, code: 'dependency_unavailable' });
  expect(Number(result.headers!['retry-after'])).toBeGreaterThan(0);
};

describe('a dependency the function cannot reach', () => {
  it('answers 503 with Retry-After when DNS cannot resolve the service endpoint', async () => {
    // The resolver's answer for a name it does not know, given by the agent's own lookup so no
    // query leaves the machine; the error then travels the real socket, handler and SDK retries.
    const lookup = (hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException) => void) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname, syscall: 'getaddrinfo' }));
    const client = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: 'http://dynamodb.us-east-1.amazonaws.com',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ httpAgent: new Agent({ lookup } as never) }),
    });
    const error = await failureOf(client);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
    expectUnavailable(error);
  });

  it('answers 503 with Retry-After when the credential chain finds no credentials', async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    try {
      const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9', credentials: fromEnv(), maxAttempts: 1 });
      const error = await failureOf(client);
      expect((error as Error).name).toBe('CredentialsProviderError');
      expectUnavailable(error);
    } finally {
      if (saved.id !== undefined) process.env.AWS_ACCESS_KEY_ID = saved.id;
      if (saved.secret !== undefined) process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    }
  });

  it('still answers 500 for an error of our own', () => {
    expect(problemResult(new TypeError('x is undefined'), 'req-1').statusCode).toBe(500);
  });
});
