import { createHash } from 'node:crypto';
import { DAY_SECONDS, epochSeconds } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import { commit, type Write } from '../../shared/table/transaction.ts';
import type { Conflict } from './api-schemas.ts';
import { batchGetConsistent } from './batch-get.ts';

export const CONFLICT_ENTITY = 'recordConflict';
/** A conflict (and its guard) is kept this long, then DynamoDB's TTL deletes it; reads leave it out at once. */
export const CONFLICT_RETENTION_DAYS = 90;
/** A filtered page (a rare externalId, or many expired conflicts) reads at most this many items, then answers a cursor. */
export const MAX_CONFLICTS_READ_PER_PAGE = 200;

type ConflictFields = Omit<Conflict, 'id'>;

/** What makes two conflicts the same: the record (stream and externalId), the kind, the incoming content. */
export const conflictKey = (fields: Pick<Conflict, 'stream' | 'externalId' | 'kind' | 'incomingSha256'>): string =>
  createHash('sha256').update(`${fields.stream}\n${fields.externalId}\n${fields.kind}\n${fields.incomingSha256}`).digest('hex');

/** Which of these conflicts are already recorded (their guard lives): those are not recorded again. */
export const recordedConflictKeys = async (tenantId: string, connectionId: string, contentKeys: string[], now: Date): Promise<Set<string>> => {
  const guards = await batchGetConsistent([...new Set(contentKeys)].map((key) => keys.recordConflictGuard(tenantId, connectionId, key)));
  return new Set(guards.filter((guard) => (guard.expiresAt as number) > epochSeconds(now)).map((guard) => guard.contentKey as string));
};

/**
 * Records new conflicts in their own transactions (a conflict and its guard together), before the
 * page that met them: a page of 50 conflicts would not fit one transaction with its records. If
 * the page then fails, its redelivery finds these recorded and does not record them again.
 */
export const commitConflicts = async (writes: Write[]): Promise<void> => {
  for (let i = 0; i < writes.length; i += 98) await commit(writes.slice(i, i + 98));
};

/**
 * A new conflict: recorded beside (never instead of) the stored record, which it leaves as it is,
 * with its guard. Both expire after 90 days. The guard's condition lets an expired guard be
 * taken over; a live one (a concurrent page met the same conflict) fails the page's transaction,
 * which comes back and finds the conflict recorded.
 */
export const conflictWrites = (tenantId: string, fields: ConflictFields, now: Date): { conflict: Conflict; writes: Write[] } => {
  const conflict: Conflict = { id: newId(), ...fields };
  const expiresAt = epochSeconds(now) + CONFLICT_RETENTION_DAYS * DAY_SECONDS;
  const contentKey = conflictKey(fields);
  return {
    conflict,
    writes: [
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...keys.recordConflict(tenantId, conflict.connectionId, conflict.id), entity: CONFLICT_ENTITY, tenantId, ...conflict, expiresAt },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: { ...keys.recordConflictGuard(tenantId, conflict.connectionId, contentKey), entity: 'recordConflictGuard', contentKey, conflictId: conflict.id, expiresAt },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
            ExpressionAttributeValues: { ':now': epochSeconds(now) },
          },
        },
      },
    ],
  };
};

const fromItem = (item: Record<string, unknown>): Conflict => {
  const { pk: _pk, sk: _sk, entity: _e, tenantId: _t, expiresAt: _x, ...conflict } = item;
  return conflict as unknown as Conflict;
};

/**
 * A connection's conflicts, oldest first (UUIDv7 ids); `externalId` filters them. Expired ones
 * are left out before DynamoDB deletes them. A page may hold fewer items than `limit` (even
 * none) with a cursor: its read budget ran out first.
 */
export const listConflicts = (tenantId: string, connectionId: string, query: { after?: string; limit: number; externalId?: string }, now: Date): Promise<Page<Conflict>> =>
  queryPage(
    {
      pk: keys.recordConflictPartition(tenantId, connectionId),
      prefix: keys.recordConflictPrefix,
      after: query.after,
      limit: query.limit,
      maxItemsRead: MAX_CONFLICTS_READ_PER_PAGE,
      filter: {
        // Conflicts written before they expired carry no expiresAt: they stay.
        FilterExpression: ['(attribute_not_exists(expiresAt) OR expiresAt > :now)', ...(query.externalId !== undefined ? ['externalId = :externalId'] : [])].join(' AND '),
        ExpressionAttributeValues: { ':now': epochSeconds(now), ...(query.externalId !== undefined ? { ':externalId': query.externalId } : {}) },
      },
    },
    fromItem,
    (conflict) => conflict.id,
  );
