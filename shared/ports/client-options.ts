import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * Options for every AWS client behind a port: short timeouts, as for the table client, so an
 * unreachable service fails the attempt quickly and SQS or the caller retries it, instead of the
 * Lambda running into its own timeout. Since @smithy/node-http-handler 4.x a requestTimeout only
 * logs a warning unless throwOnRequestTimeout is set: the import queue's client lacked it and
 * would have waited on a silent SQS endpoint until the function's deadline.
 */
export const awsClientOptions = (options: { requestTimeoutMs?: number } = {}) => ({
  maxAttempts: 3,
  requestHandler: new NodeHttpHandler({ connectionTimeout: 1_000, requestTimeout: options.requestTimeoutMs ?? 3_000, throwOnRequestTimeout: true }),
});
