import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../../shared/table/client.ts';
import { tenantPk } from '../../shared/table/keys.ts';

/**
 * The canonical records invoicing names (parties, variants), read by their record id. The key is
 * the imports' `keys.canonicalRecord(tenantId, connectionId, stream, recordId)` (issue 10, still
 * on its branch): kept here in one line so the merge swaps it for that builder.
 */
export const recordKey = (tenantId: string, connectionId: string, stream: 'parties' | 'variants', recordId: string) => ({
  pk: `${tenantPk(tenantId)}#REC#${connectionId}#${stream}`,
  sk: `R#${recordId}`,
});

/** The record's provider id, or undefined when the connection has no such record. */
export const recordExternalId = async (tenantId: string, connectionId: string, stream: 'parties' | 'variants', recordId: string): Promise<string | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: recordKey(tenantId, connectionId, stream, recordId), ConsistentRead: true }));
  return typeof Item?.externalId === 'string' ? Item.externalId : undefined;
};
