import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from './clock.ts';
import { config } from './config.ts';
import { RateLimitedError } from './errors.ts';
import { keys } from './table/keys.ts';
import { table, tableName } from './table/client.ts';

/**
 * Adds one to a fixed one-minute window counted in the table, so that every Lambda instance
 * sees the same count, and answers 429 past `limit`.
 */
export const countInWindow = async (key: (minute: number) => Record<string, string>, limit: number, now: Date): Promise<void> => {
  const seconds = epochSeconds(now);
  const minute = Math.floor(seconds / 60);
  const { Attributes } = await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key(minute),
      UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeValues: { ':one': 1, ':expires': (minute + 2) * 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  if ((Attributes?.hits as number) > limit) {
    throw new RateLimitedError(Math.max(1, (minute + 1) * 60 - seconds));
  }
};

/**
 * A tenant's requests, counted once the caller is known to be an active member, so that a
 * stranger naming the tenant cannot use up its members' rate. Client-address limits live at
 * the edge (WAF) instead.
 */
export const countTenantRequest = (tenantId: string, now: Date): Promise<void> =>
  countInWindow((minute) => keys.rateWindow(tenantId, minute), config.tenantRatePerMinute, now);

/**
 * Requests refused for want of membership, counted per token subject (hashed: subjects are the
 * issuer's text, of any length) and only when refused, so members never pay for it. Its lower
 * limit stops one token from probing or flooding tenants it does not belong to.
 */
export const countRefusedRequest = (subject: string, now: Date): Promise<void> => {
  const subjectHash = createHash('sha256').update(subject).digest('base64url');
  return countInWindow((minute) => keys.refusedRateWindow(subjectHash, minute), config.refusedRatePerMinute, now);
};
