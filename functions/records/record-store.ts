import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ProviderOrigin } from '../../shared/ports/billing-provider/port.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { ImportStream } from './api-schemas.ts';
import { batchGetConsistent } from './batch-get.ts';
import type { RecordFields } from './record-schemas.ts';

export const RECORD_ENTITY = 'canonicalRecord';

/** A record as stored: the API's fields, plus the SHA-256 of its canonical form for the version rule. */
export type StoredRecord = RecordFields & {
  id: string;
  connectionId: string;
  causationId: string;
  observationVersion: number;
  mappingVersion: number;
  origin: ProviderOrigin;
  importedAt: string;
  sha256: string;
};

export interface RecordScope {
  tenantId: string;
  connectionId: string;
  stream: ImportStream;
}

/**
 * The record id of an externalId: a UUID (version 8, the RFC 9562 custom layout) made of the
 * SHA-256 of tenant, connection, stream and externalId. Finding a record by its externalId is one
 * GetItem, and two writers of the same new record meet on the same key (a condition decides).
 */
export const recordId = (scope: RecordScope, externalId: string): string => {
  const hex = createHash('sha256').update(`${scope.tenantId}\n${scope.connectionId}\n${scope.stream}\n${externalId}`).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

const recordKey = (scope: RecordScope, id: string) => keys.canonicalRecord(scope.tenantId, scope.connectionId, scope.stream, id);

const fromItem = (item: Record<string, unknown>): StoredRecord => {
  const { pk: _pk, sk: _sk, entity: _e, tenantId: _t, stream: _s, ...record } = item;
  return record as unknown as StoredRecord;
};

/** The API's view: everything but the hash. */
export const toApiRecord = (record: StoredRecord): Omit<StoredRecord, 'sha256'> => {
  const { sha256: _sha, ...rest } = record;
  return rest;
};

/**
 * The stored records of some externalIds, read consistently (the version rule judges against
 * them, and every write is conditioned on what was read here).
 */
export const readStored = async (scope: RecordScope, externalIds: string[]): Promise<Map<string, StoredRecord>> => {
  const unique = [...new Set(externalIds)];
  const items = await batchGetConsistent(unique.map((externalId) => recordKey(scope, recordId(scope, externalId))));
  return new Map(items.map(fromItem).map((record) => [record.externalId, record]));
};

export const getRecord = async (scope: RecordScope, externalId: string): Promise<StoredRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: recordKey(scope, recordId(scope, externalId)) }));
  return Item ? fromItem(Item) : undefined;
};

/** Thrown when a record changed between the read and the write (a notice and an import at once). */
export class RecordMovedError extends Error {
  constructor(readonly externalId: string) {
    super(`record ${externalId} changed while it was being judged`);
  }
}

/**
 * Creates or replaces a record, conditioned on what the version rule judged against: nothing
 * stored, or the very observation that was read.
 */
export const putRecord = (scope: RecordScope & { tenantId: string }, record: StoredRecord, previous: StoredRecord | undefined): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...recordKey(scope, record.id), entity: RECORD_ENTITY, tenantId: scope.tenantId, stream: scope.stream, ...record },
      ...(previous
        ? { ConditionExpression: 'observationVersion = :read', ExpressionAttributeValues: { ':read': previous.observationVersion } }
        : { ConditionExpression: 'attribute_not_exists(pk)' }),
    },
  },
  onConditionFailed: () => new RecordMovedError(record.externalId),
});

export const listRecords = async (scope: RecordScope, query: { after?: string; limit: number; externalId?: string }): Promise<Page<StoredRecord>> => {
  if (query.externalId !== undefined) {
    const record = await getRecord(scope, query.externalId);
    const items = record && (query.after === undefined || record.id > query.after) ? [record] : [];
    return { items, nextCursor: null };
  }
  return queryPage(
    { pk: keys.canonicalRecordPartition(scope.tenantId, scope.connectionId, scope.stream), prefix: keys.canonicalRecordPrefix, after: query.after, limit: query.limit },
    fromItem,
    (record) => record.id,
  );
};
