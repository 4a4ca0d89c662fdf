import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { importQueue } from '../../../shared/ports/import-queue.ts';
import { tableName } from '../../../shared/table/client.ts';
import { ACTIVE_CONNECTIONS_PARTITION } from '../../../shared/table/keys.ts';
import { queryAll } from '../../../shared/table/query-all.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { toConnectionRecord, type ConnectionRecord } from '../../integrations/connection-record.ts';
import { findImportRecord, ImportRunningError, lockedImportId, newImport } from './import-record.ts';

/** An import whose progress stopped this long ago lost its message (a crash between commit and send). */
const IDLE_MS = 15 * 60_000;

/** The schedule's action in the audit log (a job names its own, decisions 12). */
export const SCHEDULE_IMPORT_AUDIT_ACTION = 'scheduleProviderImport';

/** Every active connection, from the sparse index only they carry (no Scan of the table). */
const activeConnections = async function* (): AsyncGenerator<ConnectionRecord> {
  const items = queryAll({
    TableName: tableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': ACTIVE_CONNECTIONS_PARTITION },
  });
  for await (const item of items) yield toConnectionRecord(item);
};

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

/** The hourly EventBridge schedule (decisions 10): every active connection imports. */
export const handler = async (): Promise<Record<string, number>> => {
  const tally: Record<string, number> = { started: 0, resumed: 0, running: 0, failed: 0 };
  const now = new Date();
  const runId = newId();
  for await (const connection of activeConnections()) {
    try {
      tally[await importConnection(connection, now, runId)]!++;
    } catch (error) {
      tally.failed!++;
      logger.error('scheduled import not started', { connectionId: connection.id, error: error as Error });
    }
  }
  logger.info('scheduled imports', tally);
  return tally;
};
