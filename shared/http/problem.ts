import { DependencyUnavailableError, ProblemError } from '../errors.ts';
import type { ApiResult } from './types.ts';

const unavailableNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
]);
const unavailableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/** An AWS or network failure of a dependency is the client's 503, not our 500. */
export const isDependencyFailure = (error: unknown): boolean => {
  const e = error as { name?: string; code?: string; $metadata?: unknown; cause?: unknown };
  if (unavailableNames.has(e?.name ?? '')) return true;
  if (unavailableCodes.has(e?.code ?? '')) return true;
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
        ? new DependencyUnavailableError('The table')
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
