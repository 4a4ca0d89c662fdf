import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { seal, unseal, type SealedSecret } from '../../shared/crypto/sealed-secret.ts';
import { NotFoundError, VersionMismatchError } from '../../shared/errors.ts';
import type { ProviderOrigin, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { ports } from '../../shared/ports/registry.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { ConnectionRevokedError } from './errors.ts';
import type { Connection, IssueSettings } from './schemas.ts';

/** A connection as stored: the API fields plus the provider's access token, sealed (never plain). */
export interface ConnectionRecord extends Connection {
  tenantId: string;
  authorizationId: string;
  /** Deleted on revoke. */
  sealedToken: SealedSecret | null;
}

export const CONNECTION_ENTITY = 'providerConnection';

const notFound = () => new NotFoundError('No connection with this id.');

/**
 * The encryption context binds the sealed token to its tenant and connection: a token copied to
 * another item does not open, and in the cloud the KMS grant is conditioned on these keys.
 */
export const tokenContext = (tenantId: string, connectionId: string) => ({ tenantId, connectionId });

export const sealToken = (tenantId: string, connectionId: string, accessToken: string): Promise<SealedSecret> =>
  seal(ports().keys, accessToken, tokenContext(tenantId, connectionId));

export const toConnection = (record: ConnectionRecord): Connection => {
  const { tenantId: _t, authorizationId: _a, sealedToken: _s, ...connection } = record;
  return connection;
};

/**
 * Settings as stored, read in today's shape: settings stored before dispatch guides (decisions 14)
 * have no `dispatchGuide` or `shippingTypeIds`, which read as null.
 */
export const readIssueSettings = (stored: unknown): IssueSettings | null => {
  if (!stored || typeof stored !== 'object') return null;
  const settings = stored as Omit<IssueSettings, 'shippingTypeIds' | 'documentTypeIds'> & {
    documentTypeIds: Omit<IssueSettings['documentTypeIds'], 'dispatchGuide'> & { dispatchGuide?: string | null };
    shippingTypeIds?: IssueSettings['shippingTypeIds'];
  };
  return {
    ...settings,
    documentTypeIds: { ...settings.documentTypeIds, dispatchGuide: settings.documentTypeIds.dispatchGuide ?? null },
    shippingTypeIds: settings.shippingTypeIds ?? null,
  };
};

export const toConnectionRecord = (item: Record<string, unknown>): ConnectionRecord => ({
  id: item.connectionId as string,
  tenantId: item.tenantId as string,
  authorizationId: item.authorizationId as string,
  origin: item.origin as ProviderOrigin,
  clientCode: item.clientCode as string,
  name: item.name as string,
  state: item.state as Connection['state'],
  issueSettings: readIssueSettings(item.issueSettings),
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  sealedToken: (item.sealedToken as SealedSecret | undefined) ?? null,
});

export const connectionItem = (record: ConnectionRecord) => ({
  ...keys.providerConnection(record.tenantId, record.id),
  entity: CONNECTION_ENTITY,
  connectionId: record.id,
  tenantId: record.tenantId,
  authorizationId: record.authorizationId,
  origin: record.origin,
  clientCode: record.clientCode,
  name: record.name,
  state: record.state,
  issueSettings: record.issueSettings,
  version: record.version,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  ...(record.sealedToken ? { sealedToken: record.sealedToken } : {}),
  ...(record.state === 'active' ? keys.activeConnection(record.tenantId, record.id) : {}),
});

export const findConnectionRecord = async (tenantId: string, connectionId: string): Promise<ConnectionRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.providerConnection(tenantId, connectionId), ConsistentRead: true }));
  return Item ? toConnectionRecord(Item) : undefined;
};

export const getConnectionRecord = async (tenantId: string, connectionId: string): Promise<ConnectionRecord> => {
  const record = await findConnectionRecord(tenantId, connectionId);
  if (!record) throw notFound();
  return record;
};

export const listConnectionRecords = (tenantId: string, after: string | undefined, limit: number): Promise<Page<ConnectionRecord>> =>
  queryPage({ pk: tenantPk(tenantId), prefix: keys.providerConnectionPrefix, after, limit }, toConnectionRecord, (r) => r.id);

/**
 * A connection that can reach the provider, for every operation that needs it (options,
 * settings, imports, issue, reconcile): 409 connection_revoked otherwise (decisions 10).
 */
export const activeConnection = async (tenantId: string, connectionId: string): Promise<ConnectionRecord> => {
  const record = await getConnectionRecord(tenantId, connectionId);
  if (record.state !== 'active' || !record.sealedToken) throw new ConnectionRevokedError();
  return record;
};

/** The provider session of an active connection: the token opened for this call only. */
export const sessionOf = async (record: ConnectionRecord): Promise<ProviderSession> => {
  if (record.state !== 'active' || !record.sealedToken) throw new ConnectionRevokedError();
  return { accessToken: await unseal(ports().keys, record.sealedToken, tokenContext(record.tenantId, record.id)) };
};

/** Writes a changed connection if nobody changed it since `expectedVersion` was read. */
export const saveConnection = (record: ConnectionRecord, expectedVersion: number): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: connectionItem(record),
      ConditionExpression: 'attribute_exists(pk) AND version = :expected',
      ExpressionAttributeValues: { ':expected': expectedVersion },
    },
  },
  onConditionFailed: (old) => (old ? new VersionMismatchError(old.version as number, expectedVersion) : notFound()),
});

export const checkVersion = (record: ConnectionRecord, version: number): void => {
  if (record.version !== version) throw new VersionMismatchError(record.version, version);
};
