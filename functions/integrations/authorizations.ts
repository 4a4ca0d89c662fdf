import { createHash, randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { addSeconds, DAY_SECONDS, epochSeconds, nowIso } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { ProviderRefusedError } from '../../shared/ports/billing-provider/errors.ts';
import type { ProviderGrant, ProviderOrigin } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider, providerSettings } from '../../shared/ports/billing-provider/registry.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { claimConnectionSlot } from './connection-limit.ts';
import { connectionItem, sealToken, type ConnectionRecord } from './connection-record.ts';
import {
  AuthorizationExpiredError,
  AuthorizationNotFoundError,
  AuthorizationRefusedError,
  AuthorizationUsedError,
  ClientCodeMismatchError,
  InvalidClientCodeError,
} from './errors.ts';
import { normaliseRut } from '../../shared/chile/rut.ts';
import type { Authorization } from './schemas.ts';

/** decisions 10: an authorization is open for 15 minutes. */
export const AUTHORIZATION_TTL_SECONDS = 15 * 60;
/** Kept a week past its expiry, so a late completion hears "expired" or "used", not "not found". */
const KEEP_SECONDS = 7 * DAY_SECONDS;

export const SANDBOX_AUTHORIZE_PATH = '/v1/integrations/sandbox/authorize';
export const SANDBOX_CALLBACK_PATH = '/v1/integrations/sandbox/callback';

const publicBase = (): string => (process.env.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');

const hashOf = (bindingSecret: string): string => createHash('sha256').update(bindingSecret, 'utf8').digest('hex');

/** provider-chile.md, Authorization 1: the provider's consent screen for this company. */
const authorizeUrlFor = (origin: ProviderOrigin, clientCode: string): string => {
  if (origin === 'sandbox-v1') return `${publicBase()}${SANDBOX_AUTHORIZE_PATH}?${new URLSearchParams({ client_code: clientCode })}`;
  const settings = providerSettings();
  const query = new URLSearchParams({ app_id: settings.appId, redirect_uri: settings.redirectUri, client_code: clientCode });
  return `${settings.oauthUrl.replace(/\/+$/, '')}/login?${query}`;
};

export const createAuthorization = (
  tenantId: string,
  origin: ProviderOrigin,
  body: { clientCode: string; name: string },
  now: Date,
): { authorization: Authorization; writes: Write[] } => {
  const clientCode = normaliseRut(body.clientCode);
  if (!clientCode) throw new InvalidClientCodeError();
  const authorizeUrl = authorizeUrlFor(origin, clientCode);
  const bindingSecret = randomBytes(32).toString('hex');
  const id = newId();
  const expiresAt = addSeconds(now, AUTHORIZATION_TTL_SECONDS);
  const authorization: Authorization = { id, clientCode, name: body.name, expiresAt: nowIso(expiresAt), bindingSecret, authorizeUrl };
  const item = {
    ...keys.providerAuthorization(tenantId, hashOf(bindingSecret)),
    entity: 'providerAuthorization',
    authorizationId: id,
    tenantId,
    origin,
    clientCode,
    name: body.name,
    state: 'open',
    connectionId: null,
    openUntil: authorization.expiresAt,
    createdAt: nowIso(now),
    // The table's TTL attribute (epoch seconds); reads go by openUntil.
    expiresAt: epochSeconds(expiresAt) + KEEP_SECONDS,
  };
  return { authorization, writes: [{ item: { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } }] };
};

/**
 * Completion (decisions 10): the binding secret finds the authorization within the tenant, the
 * provider trades the code for a token, and the connection is written with the authorization
 * marked used in one transaction. Every refusal writes nothing, so the authorization stays open
 * when the provider could not answer.
 */
/**
 * Grants already exchanged by a request, by request id: the chain runs a completion again when
 * its commit lost a race on the tenant's connection count, and a provider code is single-use.
 */
const exchanged = new Map<string, { grant: ProviderGrant; at: number }>();
const EXCHANGED_KEEP_MS = 60_000;

const exchangeOnce = async (provider: ReturnType<typeof billingProvider>, code: string, requestId: string): Promise<ProviderGrant> => {
  for (const [id, entry] of exchanged) if (Date.now() - entry.at > EXCHANGED_KEEP_MS) exchanged.delete(id);
  const kept = exchanged.get(`${requestId}\n${code}`);
  if (kept) return kept.grant;
  const grant = await provider.exchangeCode(code);
  exchanged.set(`${requestId}\n${code}`, { grant, at: Date.now() });
  return grant;
};

export const completeAuthorization = async (tenantId: string, body: { code: string; bindingSecret: string }, now: Date, requestId: string): Promise<{ record: ConnectionRecord; writes: Write[] }> => {
  const key = keys.providerAuthorization(tenantId, hashOf(body.bindingSecret));
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  if (!Item) throw new AuthorizationNotFoundError();
  if (Item.state !== 'open') throw new AuthorizationUsedError((Item.connectionId as string | null) ?? null);
  if (nowIso(now) >= (Item.openUntil as string)) throw new AuthorizationExpiredError(Item.openUntil as string);
  // Before the provider: a tenant at its limit keeps its code unspent.
  const claimSlot = await claimConnectionSlot(tenantId);

  const provider = billingProvider(Item.origin as ProviderOrigin);
  let grant: ProviderGrant;
  try {
    grant = await exchangeOnce(provider, body.code, requestId);
  } catch (error) {
    if (error instanceof ProviderRefusedError) throw new AuthorizationRefusedError();
    throw error; // unknown: 503, the authorization stays open
  }
  const granted = normaliseRut(grant.clientCode) ?? grant.clientCode;
  if (granted !== Item.clientCode) throw new ClientCodeMismatchError(Item.clientCode as string, granted);

  const id = newId();
  const at = nowIso(now);
  const record: ConnectionRecord = {
    id,
    tenantId,
    authorizationId: Item.authorizationId as string,
    origin: Item.origin as ProviderOrigin,
    clientCode: Item.clientCode as string,
    name: Item.name as string,
    state: 'active',
    issueSettings: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    sealedToken: await sealToken(tenantId, id, grant.accessToken),
  };
  const markUsed: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #state = :used, connectionId = :connection, usedAt = :at',
        ConditionExpression: '#state = :open',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':used': 'used', ':open': 'open', ':connection': id, ':at': at },
      },
    },
    // A concurrent completion with another idempotency key won the race.
    onConditionFailed: (current) => new AuthorizationUsedError((current?.connectionId as string | null) ?? null),
  };
  const putConnection: Write = { item: { Put: { TableName: tableName(), Item: connectionItem(record), ConditionExpression: 'attribute_not_exists(pk)' } } };
  return { record, writes: [markUsed, putConnection, claimSlot] };
};
