import { DependencyUnavailableError, ProblemError } from '../errors.ts';
import type { ApiResult } from './types.ts';

// DynamoDB's throttling names as the SDK's own retry classification lists them (@smithy/core,
// THROTTLING_ERROR_CODES), its 5xx and the SDK's timeouts: they reach us after the SDK's attempts.
const unavailableNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
// ENOTFOUND: a DNS answer that did not come (a resolver outage looks the same as a wrong name,
// and a wrong name is a deploy error the alarms show); EAI_AGAIN: the resolver's own retry hint.
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
// The SDK's credential chain found nothing, or its source (the Lambda environment, the container
// endpoint) did not answer: the role's keys are missing for now, not the request at fault.
const credentialNames = new Set(['CredentialsProviderError', 'ProviderError', 'TokenProviderError']);
/** A transaction DynamoDB cancelled because an item's table or index was over its throughput. */
const throttlingReasons = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

interface AwsLikeError {
  name?: string;
  code?: string;
  cause?: unknown;
  $retryable?: { throttling?: boolean };
  CancellationReasons?: { Code?: string }[];
}

/** An AWS or network failure of a dependency is the client's 503, not our 500. */
export const isDependencyFailure = (error: unknown): boolean => {
  const e = error as AwsLikeError | undefined;
  if (unavailableNames.has(e?.name ?? '')) return true;
  if (unavailableCodes.has(e?.code ?? '')) return true;
  if (credentialNames.has(e?.name ?? '')) return true;
  if (e?.$retryable?.throttling === true) return true;
  if (e?.name === 'TransactionCanceledException' && e.CancellationReasons?.some((reason) => throttlingReasons.has(reason.Code ?? ''))) return true;
  const errors = (error as AggregateError)?.errors;
  if (Array.isArray(errors)) return errors.some(isDependencyFailure);
  return e?.cause !== undefined && isDependencyFailure(e.cause);
};

export const problemTypeOf = (code: string): string => `urn:delivery-ops:problem:${code}`;

/** RFC 9457 problem document, with our stable `code` and the request id for support. */
export const problemResult = (error: unknown, requestId: string): ApiResult => {
  const problem =
    error instanceof ProblemError
      ? error
      : isDependencyFailure(error)
        ? new DependencyUnavailableError('A service this request needs')
        : undefined;
  const status = problem?.status ?? 500;
  const code = problem?.code ?? 'internal_error';
  const body = {
    type: problemTypeOf(code),
    title: problem?.title ?? 'Internal error',
    status,
    detail: problem?.message ?? 'Something went wrong on our side; the request id helps us find it.',
    code,
    requestId,
    ...(problem?.extensions ?? {}),
  };
  return {
    statusCode: status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': requestId, ...(problem?.headers ?? {}) },
    body: JSON.stringify(body),
  };
};
