import { BadRequestError } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import { fingerprint, findReplay } from '../../idempotency.ts';
import { header, type ApiMiddleware } from '../types.ts';

/**
 * For idem operations: requires the idempotency-key header and answers a repeat with the stored
 * response before the operation runs again. The record itself is written with the change.
 */
export const idempotencyKey = (): ApiMiddleware => ({
  before: async (request) => {
    const { event, context } = request;
    const operation = context.operation;
    if (operation.access === 'public' || !operation.idempotent) return;
    const key = header(event, 'idempotency-key');
    if (!key) throw new BadRequestError('The idempotency-key header is required.', 'idempotency_key_missing');
    if (!isUuid(key)) throw new BadRequestError('The idempotency-key header must be a UUID.', 'idempotency_key_invalid');
    context.idempotency = {
      tenantId: context.tenantId!,
      operationId: operation.operationId,
      key: key.toLowerCase(),
      fingerprint: fingerprint(event.requestContext.http.method, event.rawPath, context.body),
      sealResponse: operation.responseHasSecret === true,
    };
    const replay = await findReplay(context.idempotency, context.receivedAt);
    if (replay) {
      request.response = replay;
      return replay;
    }
  },
});
