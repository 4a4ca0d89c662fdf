import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../support/dynamo-endpoint.ts';
import { ensureTable, localClient } from '../../infra/local/create-table.ts';
import { tableDefinition } from '../../shared/table/definition.ts';

describe('a local table kept from before an index was added', () => {
  // Adding an index to DynamoDB Local takes long on a loaded machine.
  it('gets the missing index on the next start, as a deploy adds it in the cloud', { timeout: 180_000 }, async () => {
    const endpoint = dynamoEndpoint();
    const client = localClient(endpoint);
    const tableName = `old-${randomUUID()}`;
    const [kept] = tableDefinition.globalIndexes;
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['pk', 'sk', kept.partitionKey, kept.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          { IndexName: kept.indexName, KeySchema: [{ AttributeName: kept.partitionKey, KeyType: 'HASH' }, { AttributeName: kept.sortKey, KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await ensureTable(endpoint, tableName);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    client.destroy();
    expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual(tableDefinition.globalIndexes.map((i) => i.indexName).sort());
  });
});
