/**
 * The one DynamoDB table, described once as plain data so that the CDK stack and the local
 * stack (DynamoDB Local) create exactly the same thing. Key design: docs/table-design.md.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds; DynamoDB deletes expired items within days, so reads check it too. */
  ttlAttribute: 'expiresAt',
  globalIndexes: [
    { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  ],
  /** Stream consumers (webhook fan-out, tracking projection) need both images. */
  streamViewType: 'NEW_AND_OLD_IMAGES',
} as const;

export type TableDefinition = typeof tableDefinition;
