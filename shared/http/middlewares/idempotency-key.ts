import { BadRequestError, IdempotencyInProgressError, IdempotencyKeyReusedError, ProblemError } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import { fingerprint, findReplay } from '../../idempotency.ts';
import { header, type ApiMiddleware } from '../types.ts';

/**
 * What a twin's committed change can make the operation refuse: the resource is gone (404, 410),
 * its version or state moved on (409), or the change no longer applies (422).
 */
const mayBeTwinsDoing = (error: unknown): boolean =>
  error instanceof ProblemError &&
  [404, 409, 410, 422].includes(error.status) &&
  !(error instanceof IdempotencyInProgressError || error instanceof IdempotencyKeyReusedError);

/**
 * For idem operations: requires the idempotency-key header and answers a repeat with the stored
 * response before the operation runs again. The record itself is written with the change.
 * A twin with the same key may commit after that check and before the operation reads: its
 * change then refuses this one (a moved version, a taken state), so a refusal looks once more
 * for the twin's answer and replays it.
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
      omitFields: operation.replayOmits,
    };
    const replay = await findReplay(context.idempotency, context.receivedAt);
    if (replay) {
      request.response = replay;
      return replay;
    }
  },
  onError: async (request) => {
    const claim = request.context.idempotency;
    if (!claim || !mayBeTwinsDoing(request.error)) return;
    try {
      const replay = await findReplay(claim, request.context.receivedAt);
      if (replay) request.response = replay;
    } catch (error) {
      // The key was used for another request (422): that, not the refusal, is the answer.
      if (error instanceof ProblemError) request.error = error;
    }
  },
});
