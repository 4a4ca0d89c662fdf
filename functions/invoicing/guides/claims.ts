import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { StateConflictError } from '../../../shared/errors.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { tenantPk } from '../../../shared/table/keys.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import { findConnectionRecord } from '../../integrations/connection-record.ts';

/**
 * Which guide intent holds a provider guide document (`PGUIDEDOC#{scope}` / `DOC#{documentId}`).
 * A look-up matches shippings on their fields, and two stops may send identical ones (same
 * address, recipient and lines on one day): the claim keeps one provider guide from being taken
 * by two intents, so the second intent looks on, or sends its own (docs/guides-exactly-once.md).
 *
 * The scope is the provider company (decisions 19): its documents are the company's, whichever
 * connection reads them, so two connections of one company, in one tenant or two, share one
 * claim per document. The sandbox keeps documents per connection (its ids count per connection),
 * so there the connection is the company.
 */
const claimKey = (scope: string, documentId: string) => ({ pk: `PGUIDEDOC#${scope}`, sk: `DOC#${documentId}` });
/** Claims written before they were per company (per connection, in the tenant's partition): still read. */
const legacyKey = (tenantId: string, connectionId: string, documentId: string) => ({ pk: tenantPk(tenantId), sk: `INVGUIDEDOC#${connectionId}#${documentId}` });

export interface ConnectionRef {
  tenantId: string;
  id: string;
  origin: string;
  clientCode: string;
}

/** The provider company whose documents a connection reads: the claims' scope. */
export const claimScopeOf = (connection: ConnectionRef): string =>
  connection.origin === 'sandbox-v1' ? `${connection.origin}#${connection.tenantId}#${connection.id}` : `${connection.origin}#${connection.clientCode}`;

/** The scope of an intent's connection, read from the connection (revoked ones included: their claims still hold). */
export const claimScopeOfIntent = async (intent: { tenantId: string; connectionId: string }): Promise<string> => {
  const connection = await findConnectionRecord(intent.tenantId, intent.connectionId);
  if (!connection) throw new Error(`connection ${intent.connectionId} of a guide intent not found`);
  return claimScopeOf(connection);
};

/** Another guide intent holds this provider guide document. */
export class DocumentClaimedError extends StateConflictError {
  constructor(documentId: string, holder: ClaimHolder | null, tenantId: string) {
    super(`The provider guide document ${documentId} is another guide intent's${holder && holder.tenantId === tenantId ? ` (${holder.intentId})` : ''}.`, 'document_claimed');
    this.extensions.externalDocumentId = documentId;
    // Another tenant's intent (a connection of the same company) is never named.
    if (holder && holder.tenantId === tenantId) this.extensions.invoiceIntentId = holder.intentId;
  }
}

export interface ClaimHolder {
  tenantId: string;
  intentId: string;
}

export const claimWrite = (scope: string, record: { tenantId: string; connectionId: string; id: string }, documentId: string, at: string): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...claimKey(scope, documentId), entity: 'guideDocumentClaim', tenantId: record.tenantId, connectionId: record.connectionId, intentId: record.id, externalDocumentId: documentId, createdAt: at },
      ConditionExpression: 'attribute_not_exists(pk) OR intentId = :id',
      ExpressionAttributeValues: { ':id': record.id },
    },
  },
  onConditionFailed: (old) => new DocumentClaimedError(documentId, old ? { tenantId: old.tenantId as string, intentId: old.intentId as string } : null, record.tenantId),
});

/** The intent holding the document, if any (for the legacy claim, `legacy` names the intent's own connection). */
export const claimOf = async (scope: string, documentId: string, legacy?: { tenantId: string; connectionId: string }): Promise<ClaimHolder | undefined> => {
  const read = async (key: Record<string, string>) => (await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
  const item = await read(claimKey(scope, documentId));
  if (item) return { tenantId: item.tenantId as string, intentId: item.intentId as string };
  if (!legacy) return undefined;
  const old = await read(legacyKey(legacy.tenantId, legacy.connectionId, documentId));
  return old ? { tenantId: legacy.tenantId, intentId: old.intentId as string } : undefined;
};
