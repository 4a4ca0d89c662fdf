import { isUuid } from '../ids.ts';
import type { Outcome } from '../http/operation.ts';
import type { ApiContext } from '../http/types.ts';
import type { Write } from '../table/transaction.ts';
import { auditWrite } from './entry.ts';

/** A programming error, not a client's: the walk test over every operation finds it first. */
export class AuditResourceMissingError extends Error {
  constructor(operationId: string, why: string) {
    super(`${operationId} changed something but ${why}; every change needs its audit entry.`);
  }
}

/**
 * The audit entry of a request that changed something: added by the request path itself, so
 * that no operation can forget it. An answer with no writes changed nothing and gets none.
 */
export const requestAuditWrites = (context: ApiContext, outcome: Outcome): Write[] => {
  if (!outcome.writes || outcome.writes.length === 0 || outcome.auditedEarlier) return [];
  const operation = context.operation;
  if (operation.access === 'public') throw new AuditResourceMissingError(operation.operationId, 'a public operation has no actor');
  // The types require resourceId beside writes; this catches an `any` that slipped past them.
  if (typeof outcome.resourceId !== 'string' || !isUuid(outcome.resourceId)) {
    throw new AuditResourceMissingError(operation.operationId, 'it named no resourceId');
  }
  return [
    auditWrite({
      tenantId: context.tenantId!,
      actorId: context.member!.id,
      action: operation.operationId,
      resourceId: outcome.resourceId,
      requestId: context.requestId,
      now: context.receivedAt,
    }),
  ];
};
