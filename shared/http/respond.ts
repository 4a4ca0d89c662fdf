import type { Outcome } from './operation.ts';
import type { ApiResult } from './types.ts';

export const toResult = (outcome: Outcome, requestId: string): ApiResult => {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...(outcome.headers ?? {}) };
  if (outcome.body === undefined) return { statusCode: outcome.status, headers, body: '' };
  if (typeof outcome.body === 'string') return { statusCode: outcome.status, headers, body: outcome.body };
  return {
    statusCode: outcome.status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(outcome.body),
  };
};
