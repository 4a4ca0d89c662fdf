import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, UnprocessableError, VersionMismatchError } from '../../shared/errors.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { newId } from '../../shared/ids.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import { endpointItem, newSecret, rotate, toEndpointRecord, type EndpointRecord } from './endpoint-record.ts';
import type { Endpoint, SecretReveal, UpdateEndpointBody } from './schemas.ts';
import { webhookSettings } from './settings.ts';
import { checkDestinationUrl } from './transport/destination-rules.ts';
import { claimActiveSlot, releaseActiveSlot } from './active-destinations.ts';

const notFound = () => new NotFoundError('No webhook destination with this id.');

/** 422 with the rule the address breaks (decisions 5). */
export const assertDestinationAllowed = (url: string): string => {
  const check = checkDestinationUrl(url, { allowPrivate: webhookSettings.allowPrivateDestinations });
  if (!check.ok) throw new UnprocessableError(`The destination address is not allowed: ${check.reason}`, 'destination_not_allowed', [{ path: 'body.url', message: check.reason }]);
  return check.url.toString();
};

/** The destination as stored now (strongly consistent), or undefined. */
export const findEndpointRecord = async (tenantId: string, endpointId: string): Promise<EndpointRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(tenantId, endpointId), ConsistentRead: true }));
  return Item ? toEndpointRecord(Item) : undefined;
};

export const getEndpointRecord = async (tenantId: string, endpointId: string): Promise<EndpointRecord> => {
  const record = await findEndpointRecord(tenantId, endpointId);
  if (!record) throw notFound();
  return record;
};

/**
 * A tenant keeps few destinations; the fan-out reads them all for each event, strongly
 * consistent, as its deliveries carry what it read (the first attempt acts on it).
 */
export const listEndpointRecords = async (tenantId: string, options: { consistent?: boolean } = {}): Promise<EndpointRecord[]> => {
  const records: EndpointRecord[] = [];
  const query = {
    TableName: tableName(),
    ConsistentRead: options.consistent === true,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenantId), ':prefix': keys.webhookEndpointPrefix },
  };
  for await (const item of queryAll(query)) records.push(toEndpointRecord(item));
  return records;
};

/**
 * Sets the given fields of a destination, and its version and update time, if nobody changed it
 * since `expectedVersion` was read. Only these attributes: the failure count the worker keeps
 * beside them is not overwritten by a PATCH read before the count moved.
 */
export const updateEndpointFields = (
  record: EndpointRecord,
  expectedVersion: number,
  fields: Partial<Pick<EndpointRecord, 'description' | 'eventTypes' | 'state' | 'disabledReason' | 'consecutiveFailures' | 'currentSecret' | 'retiringSecrets'>>,
): Write => {
  const set = { ...fields, version: record.version, updatedAt: record.updatedAt };
  const names = Object.keys(set);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.webhookEndpoint(record.tenantId, record.id),
        UpdateExpression: `SET ${names.map((_, i) => `#f${i} = :f${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND version = :expected',
        ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
        ExpressionAttributeValues: { ...Object.fromEntries(Object.values(set).map((value, i) => [`:f${i}`, value])), ':expected': expectedVersion },
      },
    },
    onConditionFailed: (old) => (old ? new VersionMismatchError(old.version as number, expectedVersion) : notFound()),
  };
};

export const createEndpoint = async (
  tenantId: string,
  body: { url: string; description?: string | null; eventTypes: Endpoint['eventTypes'] },
  now: Date,
): Promise<{ record: EndpointRecord; secret: SecretReveal; writes: Write[] }> => {
  const url = assertDestinationAllowed(body.url);
  const id = newId();
  const { stored, reveal } = await newSecret(tenantId, id, now);
  const at = nowIso(now);
  const record: EndpointRecord = {
    id,
    tenantId,
    url,
    description: body.description ?? null,
    eventTypes: body.eventTypes,
    state: 'active',
    disabledReason: null,
    consecutiveFailures: 0,
    version: 1,
    createdAt: at,
    updatedAt: at,
    currentSecret: stored,
    retiringSecrets: [],
  };
  return {
    record,
    secret: reveal,
    writes: [{ item: { Put: { TableName: tableName(), Item: endpointItem(record), ConditionExpression: 'attribute_not_exists(pk)' } } }, ...claimActiveSlot(tenantId, id, url)],
  };
};

const checkVersion = (record: EndpointRecord, version: number) => {
  if (record.version !== version) throw new VersionMismatchError(record.version, version);
};

/**
 * PATCH: `active: true` reactivates and forgets the failures; `active: false` disables by hand.
 * Either move takes or gives back the destination's active slot (URL guard and count).
 */
export const updateEndpoint = async (tenantId: string, endpointId: string, body: UpdateEndpointBody, now: Date): Promise<{ record: EndpointRecord; writes: Write[] }> => {
  const current = await getEndpointRecord(tenantId, endpointId);
  checkVersion(current, body.version);
  const fields: Parameters<typeof updateEndpointFields>[2] = {};
  if (body.description !== undefined) fields.description = body.description;
  if (body.eventTypes !== undefined) fields.eventTypes = body.eventTypes;
  const slot: Write[] = [];
  if (body.active === true && current.state === 'disabled') {
    Object.assign(fields, { state: 'active', disabledReason: null, consecutiveFailures: 0 });
    slot.push(...claimActiveSlot(tenantId, endpointId, current.url));
  }
  if (body.active === false && current.state === 'active') {
    Object.assign(fields, { state: 'disabled', disabledReason: 'manual' });
    slot.push(...releaseActiveSlot(tenantId, endpointId, current.url));
  }
  const record: EndpointRecord = { ...current, ...fields, version: current.version + 1, updatedAt: nowIso(now) };
  return { record, writes: [updateEndpointFields(record, body.version, fields), ...slot] };
};

export const rotateSecret = async (
  tenantId: string,
  endpointId: string,
  body: { version: number; graceSeconds: number },
  now: Date,
): Promise<{ record: EndpointRecord; secret: SecretReveal; writes: Write[] }> => {
  const current = await getEndpointRecord(tenantId, endpointId);
  checkVersion(current, body.version);
  const { stored, reveal } = await newSecret(tenantId, endpointId, now);
  const secrets = rotate(current, stored, body.graceSeconds, now);
  const record: EndpointRecord = { ...current, ...secrets, version: current.version + 1, updatedAt: nowIso(now) };
  return { record, secret: reveal, writes: [updateEndpointFields(record, body.version, secrets)] };
};

/**
 * DELETE: the destination goes, and with it, if it was active, its active slot (URL guard and
 * count), so its URL may be registered again. The condition holds the state as read: a
 * destination disabled meanwhile (which gave its slot back) is read again, never released twice.
 * Its pending deliveries end when the table stream sees it go (fan-out handler); its deliveries
 * stay readable until they expire.
 */
export const deleteEndpoint = async (tenantId: string, endpointId: string): Promise<Write[]> => {
  const current = await getEndpointRecord(tenantId, endpointId);
  return [
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.webhookEndpoint(tenantId, endpointId),
          ConditionExpression: 'attribute_exists(pk) AND #state = :state',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':state': current.state },
        },
      },
      onConditionFailed: (old) => (old ? new ReadOutdatedError() : notFound()),
    },
    ...(current.state === 'active' ? releaseActiveSlot(tenantId, endpointId, current.url) : []),
  ];
};
