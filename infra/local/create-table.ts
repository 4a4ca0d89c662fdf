import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../shared/table/definition.ts';
import { localDynamoAccess } from '../../shared/table/local-access.ts';

export const localClient = (endpoint: string): DynamoDBClient =>
  new DynamoDBClient({ endpoint, ...localDynamoAccess() });

type IndexDefinition = (typeof tableDefinition.globalIndexes)[number];

const indexSpec = (index: IndexDefinition) => ({
  IndexName: index.indexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

/** Creates the table exactly as the CDK stack defines it (same keys, indexes, stream, TTL). */
export const ensureTable = async (endpoint: string, tableName: string): Promise<{ streamArn: string }> => {
  const client = localClient(endpoint);
  const d = tableDefinition;
  const keyAttributes = [d.partitionKey, d.sortKey, ...d.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: d.partitionKey, KeyType: 'HASH' },
          { AttributeName: d.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: d.globalIndexes.map(indexSpec),
        StreamSpecification: { StreamEnabled: true, StreamViewType: d.streamViewType },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: d.ttlAttribute, Enabled: true } }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, tableName);
  }
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  client.destroy();
  return { streamArn: Table!.LatestStreamArn! };
};

/**
 * A table kept in `.local/` from before an index was added gets it now, as a CDK deploy adds it
 * to the cloud table; otherwise the new index's queries would fail on an old local table.
 */
const addMissingIndexes = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of tableDefinition.globalIndexes.filter((i) => !present.has(i.indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
      }),
    );
    await indexesActive(client, tableName);
  }
};

/** DynamoDB builds one new index at a time: the next waits until this one is active. */
const indexesActive = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  // DynamoDB Local builds indexes in the background; under a full test run that can take a minute.
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the indexes of ${tableName} did not become active`);
};
