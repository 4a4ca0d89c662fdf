import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/create-table.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { resetTableClient, table } from '../../shared/table/client.ts';

const TABLE = 'durability';

const use = (ddb: DynamoDbLocal) => {
  // As the local stack sets them for a data folder.
  Object.assign(process.env, { DYNAMODB_ENDPOINT: ddb.endpoint, TABLE_NAME: TABLE, DYNAMODB_LOCAL_DURABLE: '1' });
  resetTableClient();
};

const gone = async (pid: number) => {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
};

// Found by `npm run chaos`: a route plan answered 201 was gone after the restart.
describe('DynamoDB Local on a data folder, killed as a crash would', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ddb-durability-'));
  const saved = { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT, TABLE_NAME: process.env.TABLE_NAME, DYNAMODB_LOCAL_DURABLE: process.env.DYNAMODB_LOCAL_DURABLE };
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetTableClient();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every transaction the table client was told had committed', async () => {
    const first = await startDynamoDbLocal({ dataDir });
    await ensureTable(first.endpoint, TABLE);
    use(first);
    for (let n = 0; n < 30; n++) {
      await table().send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: TABLE, Item: { pk: `A#${n}`, sk: 'x' } } }, { Update: { TableName: TABLE, Key: { pk: `B#${n}`, sk: 'x' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': n } } }],
        }),
      );
    }
    // No stop, no flush: the moment the last answer arrived, the process dies.
    process.kill(first.pid, 'SIGKILL');
    await gone(first.pid);

    const second = await startDynamoDbLocal({ dataDir });
    try {
      use(second);
      const { Items = [] } = await table().send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
      expect(Items.map((i) => i.pk).sort()).toEqual(Array.from({ length: 30 }, (_, n) => [`A#${n}`, `B#${n}`]).flat().sort());
    } finally {
      await second.stop();
    }
  }, 240_000);
});
