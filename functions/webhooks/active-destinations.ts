import { createHash } from 'node:crypto';
import { UnprocessableError } from '../../shared/errors.ts';
import { keys } from '../../shared/table/keys.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { webhookSettings } from './settings.ts';

/**
 * What makes two destination URLs the same receiver: `new URL` already lower-cases the scheme
 * and host, drops the default port and normalises percent-encoding; the fragment is never sent.
 */
export const normaliseUrl = (url: string): string => {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.toString();
};

const urlHash = (url: string): string => createHash('sha256').update(normaliseUrl(url)).digest('hex');

/**
 * The writes that make a destination active: its URL guard (a second active destination with the
 * same URL fails the transaction) and the tenant's active count, capped in its own condition.
 * Both join the destination's transaction, so two concurrent requests cannot both pass.
 */
export const claimActiveSlot = (tenantId: string, endpointId: string, url: string): Write[] => {
  const max = webhookSettings.maxActiveEndpoints;
  return [
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: { ...keys.webhookUrlGuard(tenantId, urlHash(url)), entity: 'webhookUrlGuard', tenantId, endpointId },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: () =>
        new UnprocessableError('Another active destination of this company already has this URL.', 'duplicate_destination', [{ path: 'body.url', message: 'an active destination already uses this URL' }]),
    },
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.webhookActiveCount(tenantId),
          UpdateExpression: 'SET active = if_not_exists(active, :zero) + :one, entity = :entity',
          ConditionExpression: 'attribute_not_exists(active) OR active < :max',
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max, ':entity': 'webhookActiveCount' },
        },
      },
      onConditionFailed: () => new UnprocessableError(`A company may have at most ${max} active destinations; disable one first.`, 'destination_limit_reached'),
    },
  ];
};

/** The writes that go with a destination leaving `active` (by PATCH or after failures). */
export const releaseActiveSlot = (tenantId: string, endpointId: string, url: string): Write[] => [
  {
    item: {
      Delete: {
        TableName: tableName(),
        Key: keys.webhookUrlGuard(tenantId, urlHash(url)),
        // Never another destination's guard; a missing one (older data) is fine.
        ConditionExpression: 'attribute_not_exists(pk) OR endpointId = :id',
        ExpressionAttributeValues: { ':id': endpointId },
      },
    },
  },
  {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.webhookActiveCount(tenantId),
        UpdateExpression: 'SET active = if_not_exists(active, :one) - :one, entity = :entity',
        ExpressionAttributeValues: { ':one': 1, ':entity': 'webhookActiveCount' },
      },
    },
  },
];
