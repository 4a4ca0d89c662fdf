import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from './clock.ts';
import { config } from './config.ts';
import { RateLimitedError } from './errors.ts';
import { keys } from './table/keys.ts';
import { table, tableName } from './table/client.ts';

/**
 * One hit in a fixed one-minute window, counted in the table so that every Lambda instance sees
 * the same count; over `limit` it is a 429 with the seconds left in the window.
 */
export const countInWindow = async (windowId: string, limit: number, now: Date): Promise<void> => {
  const seconds = epochSeconds(now);
  const minute = Math.floor(seconds / 60);
  const { Attributes } = await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(windowId, minute),
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
 * A fixed one-minute window per tenant: one small write per request, made beside the membership
 * read so it adds no round trip. Client-address limits live at the edge (WAF) instead.
 */
export const countTenantRequest = (tenantId: string, now: Date): Promise<void> => countInWindow(tenantId, config.tenantRatePerMinute, now);
