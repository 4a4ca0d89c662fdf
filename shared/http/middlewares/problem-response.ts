import { ProblemError } from '../../errors.ts';
import { logger } from '../../logger.ts';
import { problemResult } from '../problem.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * Turns any error into application/problem+json; only unexpected ones are logged as errors.
 * An error a later middleware already answered (an idempotent replay) is left as answered.
 */
export const problemResponse = (): ApiMiddleware => ({
  onError: (request) => {
    if (request.response !== undefined) return;
    const { error, context } = request;
    const result = problemResult(error, context.requestId ?? 'unknown');
    if (error instanceof ProblemError) {
      logger.info('request refused', { status: error.status, code: error.code });
    } else {
      logger.error('request failed', { status: result.statusCode, error: error as Error });
    }
    request.response = result;
  },
});
