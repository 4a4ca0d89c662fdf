import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** The API Gateway v2 event of one request, as the local gateway and the cloud build it. */
export const apiEvent = (options: {
  routeKey: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  query?: Record<string, string>;
  pathParameters?: Record<string, string>;
}): APIGatewayProxyEventV2 => {
  const [method] = options.routeKey.split(' ');
  return {
    version: '2.0',
    routeKey: options.routeKey,
    rawPath: options.path,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    headers: { ...options.headers, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    queryStringParameters: options.query,
    pathParameters: options.pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: '127.0.0.1',
      domainPrefix: 'bench',
      http: { method, path: options.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey: options.routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    isBase64Encoded: false,
  };
};

export const lambdaContext = (name: string): Context =>
  ({
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  }) as Context;
