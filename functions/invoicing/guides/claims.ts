import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { StateConflictError } from '../../../shared/errors.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { tenantPk } from '../../../shared/table/keys.ts';
import type { Write } from '../../../shared/table/transaction.ts';

/**
 * Which guide intent holds a provider guide document (`T#{tenant}` / `INVGUIDEDOC#{connection}#{documentId}`).
 * A look-up matches shippings on their fields, and two stops may send identical ones (same
 * address, recipient and lines on one day): the claim keeps one provider guide from being taken
 * by two intents, so the second intent looks on, or sends its own (docs/guides-exactly-once.md).
 */
const claimKey = (tenantId: string, connectionId: string, documentId: string) => ({ pk: tenantPk(tenantId), sk: `INVGUIDEDOC#${connectionId}#${documentId}` });

/** Another guide intent holds this provider guide document. */
export class DocumentClaimedError extends StateConflictError {
  constructor(documentId: string, intentId: string | null) {
    super(`The provider guide document ${documentId} is another guide intent's${intentId ? ` (${intentId})` : ''}.`, 'document_claimed');
    this.extensions.externalDocumentId = documentId;
    if (intentId) this.extensions.invoiceIntentId = intentId;
  }
}

export const claimWrite = (record: { tenantId: string; connectionId: string; id: string }, documentId: string, at: string): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...claimKey(record.tenantId, record.connectionId, documentId), entity: 'guideDocumentClaim', intentId: record.id, externalDocumentId: documentId, createdAt: at },
      ConditionExpression: 'attribute_not_exists(pk) OR intentId = :id',
      ExpressionAttributeValues: { ':id': record.id },
    },
  },
  onConditionFailed: (old) => new DocumentClaimedError(documentId, (old?.intentId as string | undefined) ?? null),
});

/** The intent holding the document, if any. */
export const claimOf = async (tenantId: string, connectionId: string, documentId: string): Promise<string | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: claimKey(tenantId, connectionId, documentId), ConsistentRead: true }));
  return Item?.intentId as string | undefined;
};
