import { DAY_SECONDS, epochSeconds, nowIso } from '../clock.ts';
import { newId } from '../ids.ts';
import { tableName } from '../table/client.ts';
import { auditKeys } from '../table/keys-audit.ts';
import type { Write } from '../table/transaction.ts';

/** Entries are kept 400 days (decisions 12); DynamoDB's TTL removes them later, reads check it. */
export const AUDIT_RETENTION_DAYS = 400;

/**
 * The actor of changes made by scheduled jobs (webhook sweeper, and later the reconciler and
 * imports). Members' ids are UUIDv7, so the nil UUID can never name a person.
 */
export const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

/** What an entry records: who did which operation to what, in which request. Never a body. */
export interface AuditFacts {
  tenantId: string;
  /** The member's id, or SYSTEM_ACTOR_ID for a job. */
  actorId: string;
  /** The operation's operationId; a job names its own action. */
  action: string;
  /** The changed resource: the new one for a create. */
  resourceId: string;
  /** The x-request-id of the request; a job's own run id. */
  requestId: string;
  now: Date;
}

/**
 * The one way to write an audit entry: a Put that joins the change's own transaction, so the
 * entry exists exactly when the change does. The request path adds it for every operation that
 * returns writes; jobs add it to their own commit.
 */
export const auditWrite = (facts: AuditFacts): Write => {
  const id = newId();
  return {
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...auditKeys.entry(facts.tenantId, id),
          ...auditKeys.indexes(facts.tenantId, { id, resourceId: facts.resourceId, actorId: facts.actorId, action: facts.action }),
          entity: 'audit',
          id,
          tenantId: facts.tenantId,
          actorId: facts.actorId,
          requestId: facts.requestId,
          resourceId: facts.resourceId,
          action: facts.action,
          outcome: 'succeeded',
          createdAt: nowIso(facts.now),
          expiresAt: epochSeconds(facts.now) + AUDIT_RETENTION_DAYS * DAY_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
};
