import { NotFoundError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { logger } from '../../logger.ts';
import type { AnyOperation } from '../operation.ts';
import type { ApiMiddleware } from '../types.ts';

/**
 * First in the chain: names the request, finds the operation by the gateway's route key and
 * tags every log line with the request id.
 */
export const requestContext = (operations: Map<string, AnyOperation>): ApiMiddleware => ({
  before: (request) => {
    const { event, context } = request;
    context.requestId = event.requestContext?.requestId || newId();
    context.receivedAt = new Date();
    logger.appendKeys({ requestId: context.requestId, route: event.routeKey });
    const operation = operations.get(event.routeKey);
    // `$default` is the catch-all route (functions/index.ts): a path no operation has.
    if (!operation) throw new NotFoundError(event.routeKey === '$default' ? 'There is no operation at this method and path.' : `No operation at ${event.routeKey}.`);
    context.operation = operation;
  },
});
