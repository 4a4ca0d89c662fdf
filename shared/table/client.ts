import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { config } from '../config.ts';
import { tableClientMiddleware } from '../ports/wrappers.ts';
import { localCommitBarrier } from './local-commit-barrier.ts';
import { localDynamoAccess } from './local-access.ts';
import { localWriteSignal } from './local-write-signal.ts';

const makeClient = (): DynamoDBDocumentClient => {
  const endpoint = config.dynamoEndpoint;
  const raw = new DynamoDBClient({
    endpoint,
    ...(endpoint ? localDynamoAccess() : {}),
    maxAttempts: 3,
    // Short timeouts turn an unreachable or hung table into a quick 503 instead of a Lambda
    // timeout. Since @smithy/node-http-handler 4.x a requestTimeout only logs a warning unless
    // throwOnRequestTimeout is set (found by the load run: the call waited on).
    requestHandler: new NodeHttpHandler({ connectionTimeout: config.tableConnectTimeoutMs, requestTimeout: config.tableRequestTimeoutMs, throwOnRequestTimeout: true }),
  });
  // The SDK's logger middleware runs every input and output through its schema's log filter even
  // with no logger set (this service sets none): on a 300-item Query that was a fifth to a third
  // of the call's CPU in the handler (docs/testing.md).
  raw.middlewareStack.remove('loggerMiddleware');
  // Registered from outside (the test run records every request for the IAM check); in the cloud none.
  for (const middleware of tableClientMiddleware()) raw.middlewareStack.use(middleware);
  if (endpoint) raw.middlewareStack.use(localWriteSignal);
  if (endpoint && config.dynamoLocalDurable) {
    const reader = new DynamoDBClient({ endpoint, ...localDynamoAccess() });
    raw.middlewareStack.use(localCommitBarrier(reader));
  }
  return DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
};

let client: DynamoDBDocumentClient | undefined;

/** Module-scope client, created on first use so that importing a handler never needs settings. */
export const table = (): DynamoDBDocumentClient => (client ??= makeClient());

/** Tests and the local stack point handlers at another table process without a new module. */
export const resetTableClient = (): void => {
  client?.destroy();
  client = undefined;
};

export const tableName = (): string => config.tableName;
