import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../../../shared/logger.ts';
import { importQueue } from '../../../shared/ports/import-queue.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { CONNECTION_ENTITY, toConnectionRecord, type ConnectionRecord } from '../../integrations/connection-record.ts';
import { findImportRecord, ImportRunningError, lockedImportId, newImport } from './import-record.ts';

/** An import whose progress stopped this long ago lost its message (a crash between commit and send). */
const IDLE_MS = 15 * 60_000;

const activeConnections = async function* (): AsyncGenerator<ConnectionRecord> {
  let start: Record<string, unknown> | undefined;
  do {
    // Hourly, over the connections only (a filter); a sparse index would spare the scan once tables grow.
    const page = await table().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :entity AND #state = :active',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':entity': CONNECTION_ENTITY, ':active': 'active' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) yield toConnectionRecord(item);
    start = page.LastEvaluatedKey;
  } while (start);
};

/** Starts an import of one connection, or resumes its import when that one went idle. */
export const importConnection = async (connection: ConnectionRecord, now: Date): Promise<'started' | 'resumed' | 'running'> => {
  const lockedId = await lockedImportId(connection.tenantId, connection.id);
  if (lockedId) {
    const running = await findImportRecord(connection.tenantId, connection.id, lockedId);
    if (!running || now.getTime() - Date.parse(running.updatedAt) < IDLE_MS) return 'running';
    await importQueue().send({ tenantId: running.tenantId, connectionId: running.connectionId, importId: running.id, step: running.step });
    return 'resumed';
  }
  const { record, writes } = newImport(connection, undefined, now);
  try {
    await commit(writes);
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
  for await (const connection of activeConnections()) {
    try {
      tally[await importConnection(connection, now)]!++;
    } catch (error) {
      tally.failed!++;
      logger.error('scheduled import not started', { connectionId: connection.id, error: error as Error });
    }
  }
  logger.info('scheduled imports', tally);
  return tally;
};
