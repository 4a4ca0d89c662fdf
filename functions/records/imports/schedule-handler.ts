import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { importQueue } from '../../../shared/ports/import-queue.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { ACTIVE_CONNECTIONS_PARTITION, keys } from '../../../shared/table/keys.ts';
import { queryAll } from '../../../shared/table/query-all.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { toConnectionRecord, type ConnectionRecord } from '../../integrations/connection-record.ts';
import { findImportRecord, ImportRunningError, lockedImportId, newImport } from './import-record.ts';

/** An import whose progress stopped this long ago lost its message (a crash between commit and send). */
const IDLE_MS = 15 * 60_000;

/** The schedule's action in the audit log (a job names its own, decisions 12). */
export const SCHEDULE_IMPORT_AUDIT_ACTION = 'scheduleProviderImport';

/** Connections one run looks at, at most: the next run goes on after the last one (IMPORT_SCHEDULE_MAX_PER_RUN). */
const maxPerRun = (): number => Number(process.env.IMPORT_SCHEDULE_MAX_PER_RUN ?? 500) || 500;
/** A run stops starting imports this long before its Lambda's timeout. */
const RESERVE_MS = 30_000;

type IndexKey = { pk: string; sk: string; gsi2pk: string; gsi2sk: string };
const indexKeyOf = (item: Record<string, unknown>): IndexKey => ({ pk: item.pk as string, sk: item.sk as string, gsi2pk: item.gsi2pk as string, gsi2sk: item.gsi2sk as string });

/** The active connections from the sparse index only they carry (no Scan), after `after` when given. */
const activeConnections = async function* (after: IndexKey | undefined): AsyncGenerator<Record<string, unknown>> {
  const query = {
    TableName: tableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: after ? 'gsi2pk = :pk AND gsi2sk > :after' : 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': ACTIVE_CONNECTIONS_PARTITION, ...(after ? { ':after': after.gsi2sk } : {}) },
  };
  yield* queryAll(query);
};

/**
 * The index in a circle: from after the cursor to its end, then from its start up to and
 * including the cursor (a run that goes all round looks at each once). A run that stops early
 * (at most maxPerRun, or near its timeout) leaves the rest to the next run rather than to the
 * same first connections every hour.
 */
const fromCursor = async function* (cursor: IndexKey | undefined): AsyncGenerator<Record<string, unknown>> {
  yield* activeConnections(cursor);
  if (!cursor) return;
  for await (const item of activeConnections(undefined)) {
    if ((item.gsi2sk as string) > cursor.gsi2sk) return;
    yield item;
  }
};

const readCursor = async (): Promise<IndexKey | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.importScheduleCursor(), ConsistentRead: true }));
  return Item?.after as IndexKey | undefined;
};

const saveCursor = (after: IndexKey): Promise<unknown> =>
  table().send(new PutCommand({ TableName: tableName(), Item: { ...keys.importScheduleCursor(), entity: 'importScheduleCursor', after } }));

/** Starts an import of one connection, or resumes its import when that one went idle. */
export const importConnection = async (connection: ConnectionRecord, now: Date, runId = newId()): Promise<'started' | 'resumed' | 'running'> => {
  const lockedId = await lockedImportId(connection.tenantId, connection.id);
  if (lockedId) {
    const running = await findImportRecord(connection.tenantId, connection.id, lockedId);
    if (!running || now.getTime() - Date.parse(running.updatedAt) < IDLE_MS) return 'running';
    await importQueue().send({ tenantId: running.tenantId, connectionId: running.connectionId, importId: running.id, step: running.step });
    return 'resumed';
  }
  const { record, writes } = newImport(connection, undefined, now);
  try {
    await commit([
      ...writes,
      auditWrite({ tenantId: record.tenantId, actorId: SYSTEM_ACTOR_ID, action: SCHEDULE_IMPORT_AUDIT_ACTION, resourceId: record.id, requestId: runId, now }),
    ]);
  } catch (error) {
    if (error instanceof ImportRunningError) return 'running';
    throw error;
  }
  await importQueue().send({ tenantId: record.tenantId, connectionId: record.connectionId, importId: record.id, step: 0 });
  return 'started';
};

/**
 * The hourly EventBridge schedule (decisions 10): every active provider connection imports.
 * Sandbox connections never do (they are for trying the flow; their data is generated).
 */
export const handler = async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<Record<string, number>> => {
  const tally: Record<string, number> = { started: 0, resumed: 0, running: 0, failed: 0, sandbox: 0 };
  const now = new Date();
  const runId = newId();
  let last: IndexKey | undefined;
  let seen = 0;
  for await (const item of fromCursor(await readCursor())) {
    if (seen >= maxPerRun() || (context && context.getRemainingTimeInMillis() < RESERVE_MS)) break;
    seen++;
    last = indexKeyOf(item);
    const connection = toConnectionRecord(item);
    if (connection.origin === 'sandbox-v1') {
      tally.sandbox!++;
      continue;
    }
    try {
      tally[await importConnection(connection, now, runId)]!++;
    } catch (error) {
      tally.failed!++;
      logger.error('scheduled import not started', { connectionId: connection.id, error: error as Error });
    }
  }
  if (last) await saveCursor(last);
  logger.info('scheduled imports', tally);
  return tally;
};
