import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { NotFoundError, StateConflictError } from '../../../shared/errors.ts';
import { outboxEvent } from '../../../shared/events/outbox.ts';
import { newId } from '../../../shared/ids.ts';
import type { ProviderOrigin } from '../../../shared/ports/billing-provider/port.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys, tenantPk } from '../../../shared/table/keys.ts';
import { queryPage, type Page } from '../../../shared/table/pages.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import type { ConnectionRecord } from '../../integrations/connection-record.ts';
import { importStreams, type Import, type ImportStream } from '../api-schemas.ts';
import { emptyCounts } from '../observe.ts';

export const IMPORT_ENTITY = 'providerImport';

/** An import as stored: the API's fields and where it stands (decisions 10: one page per message). */
export interface ImportRecord extends Import {
  tenantId: string;
  origin: ProviderOrigin;
  clientCode: string;
  /** Pages committed so far; a message for another step is a redelivery and changes nothing. */
  step: number;
  /** Which of `streams` is being read, and the provider offset of its next page. */
  streamIndex: number;
  offset: number;
  updatedAt: string;
}

export class ImportRunningError extends StateConflictError {
  constructor(importId: string | undefined) {
    super('An import of this connection is already queued or running; wait for it to finish.', 'import_running');
    if (importId) this.extensions.importId = importId;
  }
}

export const toImport = (record: ImportRecord): Import => ({
  id: record.id,
  connectionId: record.connectionId,
  streams: record.streams,
  state: record.state,
  counts: record.counts,
  error: record.error,
  createdAt: record.createdAt,
  finishedAt: record.finishedAt,
});

const fromItem = (item: Record<string, unknown>): ImportRecord => {
  const { pk: _pk, sk: _sk, entity: _e, importId, ...rest } = item;
  return { ...(rest as unknown as ImportRecord), id: importId as string };
};

const importItem = (record: ImportRecord) => {
  const { id, ...rest } = record;
  return { ...keys.providerImport(record.tenantId, record.connectionId, id), entity: IMPORT_ENTITY, importId: id, ...rest };
};

/**
 * A new queued import, with the connection's lock (one import at a time: a second meets the
 * lock's condition, 409 import_running) and the entry that lets the company's notices find it.
 */
export const newImport = (connection: ConnectionRecord, streams: ImportStream[] | undefined, now: Date): { record: ImportRecord; writes: Write[] } => {
  const at = nowIso(now);
  const wanted = streams ?? [...importStreams];
  const record: ImportRecord = {
    id: newId(),
    tenantId: connection.tenantId,
    connectionId: connection.id,
    origin: connection.origin,
    clientCode: connection.clientCode,
    // Always read in the order of decisions 10: variants, then stocks, then parties.
    streams: importStreams.filter((s) => wanted.includes(s)),
    state: 'queued',
    counts: emptyCounts(),
    error: null,
    createdAt: at,
    finishedAt: null,
    step: 0,
    streamIndex: 0,
    offset: 0,
    updatedAt: at,
  };
  const lock: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.importLock(record.tenantId, record.connectionId), entity: 'importLock', importId: record.id, createdAt: at },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: (old) => new ImportRunningError(old?.importId as string | undefined),
  };
  const put: Write = { item: { Put: { TableName: tableName(), Item: importItem(record), ConditionExpression: 'attribute_not_exists(pk)' } } };
  const company: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.providerCompanyConnection(record.origin, record.clientCode, record.tenantId, record.connectionId),
          entity: 'providerCompanyConnection',
          tenantId: record.tenantId,
          connectionId: record.connectionId,
        },
      },
    },
  };
  return { record, writes: [lock, put, company] };
};

export const findImportRecord = async (tenantId: string, connectionId: string, importId: string): Promise<ImportRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.providerImport(tenantId, connectionId, importId), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
};

export const getImportRecord = async (tenantId: string, connectionId: string, importId: string): Promise<ImportRecord> => {
  const record = await findImportRecord(tenantId, connectionId, importId);
  if (!record) throw new NotFoundError('No import with this id.');
  return record;
};

export const listImportRecords = (tenantId: string, connectionId: string, after: string | undefined, limit: number): Promise<Page<ImportRecord>> =>
  queryPage({ pk: tenantPk(tenantId), prefix: keys.providerImportPrefix(connectionId), after, limit }, fromItem, (r) => r.id);

/** The import that holds the connection's lock, if any. */
export const lockedImportId = async (tenantId: string, connectionId: string): Promise<string | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.importLock(tenantId, connectionId), ConsistentRead: true }));
  return Item?.importId as string | undefined;
};

/** Thrown when the import moved on since it was read: another delivery of the message got there first. */
export class ImportMovedError extends Error {
  constructor() {
    super('the import moved on since it was read');
  }
}

/**
 * The import's progress, conditioned on the step that was read: of two deliveries of one
 * message, exactly one commits its page.
 */
export const progressWrite = (next: ImportRecord, expectedStep: number): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: importItem(next),
      ConditionExpression: '#step = :step AND #state IN (:queued, :running)',
      ExpressionAttributeNames: { '#step': 'step', '#state': 'state' },
      ExpressionAttributeValues: { ':step': expectedStep, ':queued': 'queued', ':running': 'running' },
    },
  },
  onConditionFailed: () => new ImportMovedError(),
});

/** What the transaction that finishes an import adds: the lock released and the event. */
export const finishWrites = (record: ImportRecord, now: Date): Write[] => [
  {
    item: {
      Delete: {
        TableName: tableName(),
        Key: keys.importLock(record.tenantId, record.connectionId),
        ConditionExpression: 'importId = :id',
        ExpressionAttributeValues: { ':id': record.id },
      },
    },
    onConditionFailed: () => new ImportMovedError(),
  },
  outboxEvent(
    record.tenantId,
    'integration.import.finished',
    { connectionId: record.connectionId, importId: record.id, state: record.state as 'succeeded' | 'failed', counts: record.counts },
    now,
  ).write,
];
