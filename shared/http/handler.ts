import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { requestAuditWrites } from '../audit/request-entry.ts';
import { IdempotencyInProgressError } from '../errors.ts';
import { findReplay, IdempotentReplay, idempotencyWrite } from '../idempotency.ts';
import { logger } from '../logger.ts';
import { commit, ReadOutdatedError, TransactionConflictError } from '../table/transaction.ts';
import { bodyLimits } from './middlewares/body-limits.ts';
import { idempotencyKey } from './middlewares/idempotency-key.ts';
import { jsonBody } from './middlewares/json-body.ts';
import { originVerify } from './middlewares/origin-verify.ts';
import { problemResponse } from './middlewares/problem-response.ts';
import { requestContext } from './middlewares/request-context.ts';
import { roleCheck } from './middlewares/role-check.ts';
import { tenantMembership } from './middlewares/tenant-membership.ts';
import { validateInput } from './middlewares/validate-input.ts';
import { verifyToken } from './middlewares/verify-token.ts';
import { routeKey, type AnyOperation, type Outcome } from './operation.ts';
import { toResult } from './respond.ts';
import { header, type ApiContext, type ApiEvent, type ApiResult } from './types.ts';

const invoke = (event: ApiEvent, context: ApiContext): Promise<Outcome> => {
  const operation = context.operation;
  const input = context.input!;
  if (operation.access === 'public') {
    return operation.handle({
      params: input.params,
      query: input.query,
      body: input.body,
      requestId: context.requestId,
      now: context.receivedAt,
      sourceIp: context.viewerAddress ?? event.requestContext.http.sourceIp,
      acceptLanguage: header(event, 'accept-language'),
    });
  }
  return operation.handle({
    params: input.params,
    query: input.query,
    body: input.body,
    caller: { requestId: context.requestId, tenantId: context.tenantId!, member: context.member!, claims: context.claims!, now: context.receivedAt, publicBaseUrl: context.publicBaseUrl },
  });
};

/**
 * The end of the chain: run the operation, then commit its writes, its idempotency record and
 * its audit entry in one transaction. A lost race on the idempotency record becomes a replay or a 409.
 */
/** Runs of one request when its commit lost a race the operation decides afresh. */
const MAX_RUNS = 5;

const runOperation = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
  for (let run = 1; ; run++) {
    try {
      return await runOnce(event, context);
    } catch (error) {
      const retryConflict = error instanceof TransactionConflictError && context.operation.access === 'member' && context.operation.retryOnConflict;
      if (run >= MAX_RUNS || !(error instanceof ReadOutdatedError || retryConflict)) throw error;
      // Nothing committed; a short random pause keeps the racing requests from meeting again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * run));
    }
  }
};

const runOnce = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
  const outcome = await invoke(event, context);
  const result = toResult(outcome, context.requestId);
  const claim = context.idempotency;
  // The idempotency record goes first: when a twin request already committed, its failed
  // condition is the one reported (a replay), not the twin's effects (a taken plate, say).
  const writes = [
    ...(claim ? [await idempotencyWrite(claim, result, context.receivedAt)] : []),
    ...(outcome.writes ?? []),
    ...requestAuditWrites(context, outcome),
  ];
  try {
    await commit(writes);
  } catch (error) {
    if (error instanceof IdempotentReplay) return error.result;
    if (claim && error instanceof TransactionConflictError) {
      // A twin request may have committed in the meantime: answer as it did.
      const replay = await findReplay(claim, context.receivedAt);
      if (replay) return replay;
      if (error.conflictedIndexes.includes(0)) throw new IdempotencyInProgressError();
    }
    throw error;
  }
  if (outcome.afterCommit) {
    try {
      await outcome.afterCommit();
    } catch (error) {
      // The change is committed and answered as such; its follow-up is picked up by a sweep.
      logger.error('follow-up after commit failed', { error: error as Error });
    }
  }
  return result;
};

/**
 * One Lambda handler per endpoint group. Every request takes the same path:
 * request id and logs → problem+json on error → origin secret (403) → token → active membership (and tenant rate)
 * → role → 413/415 → JSON → validation → idempotency → operation → one transaction.
 */
export const httpHandler = (operations: AnyOperation[]) => {
  const byRoute = new Map(operations.map((operation) => [routeKey(operation), operation]));
  return middy<ApiEvent, ApiResult, Error, ApiContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(requestContext(byRoute))
    .use(problemResponse())
    .use(originVerify())
    .use(verifyToken())
    .use(tenantMembership())
    .use(roleCheck())
    .use(bodyLimits())
    .use(jsonBody())
    .use(validateInput())
    .use(idempotencyKey())
    .handler(runOperation);
};
