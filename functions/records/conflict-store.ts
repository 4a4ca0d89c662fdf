import { newId } from '../../shared/ids.ts';
import { tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { Conflict } from './api-schemas.ts';

export const CONFLICT_ENTITY = 'recordConflict';

/** A new conflict: recorded beside (never instead of) the stored record, which it leaves as it is. */
export const conflictWrite = (tenantId: string, fields: Omit<Conflict, 'id'>): { conflict: Conflict; write: Write } => {
  const conflict: Conflict = { id: newId(), ...fields };
  return {
    conflict,
    write: {
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.recordConflict(tenantId, conflict.connectionId, conflict.id), entity: CONFLICT_ENTITY, tenantId, ...conflict },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    },
  };
};

const fromItem = (item: Record<string, unknown>): Conflict => {
  const { pk: _pk, sk: _sk, entity: _e, tenantId: _t, ...conflict } = item;
  return conflict as unknown as Conflict;
};

/** A connection's conflicts, oldest first (UUIDv7 ids); `externalId` filters them. */
export const listConflicts = (tenantId: string, connectionId: string, query: { after?: string; limit: number; externalId?: string }): Promise<Page<Conflict>> =>
  queryPage(
    {
      pk: keys.recordConflictPartition(tenantId, connectionId),
      prefix: keys.recordConflictPrefix,
      after: query.after,
      limit: query.limit,
      ...(query.externalId !== undefined
        ? { filter: { FilterExpression: 'externalId = :externalId', ExpressionAttributeValues: { ':externalId': query.externalId } } }
        : {}),
    },
    fromItem,
    (conflict) => conflict.id,
  );
