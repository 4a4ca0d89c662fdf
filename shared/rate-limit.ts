import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from './clock.ts';
import { config } from './config.ts';
import { RateLimitedError } from './errors.ts';
import { keys } from './table/keys.ts';
import { table, tableName } from './table/client.ts';

/**
 * A fixed one-minute window per tenant, counted in the table so that every Lambda instance sees
 * the same count. One small write per request, made beside the membership read so it adds no
 * round trip. Client-address limits live at the edge (WAF) instead.
 */
export const countTenantRequest = async (tenantId: string, now: Date): Promise<void> => {
  const seconds = epochSeconds(now);
  const minute = Math.floor(seconds / 60);
  const { Attributes } = await table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(tenantId, minute),
      UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeValues: { ':one': 1, ':expires': (minute + 2) * 60 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  if ((Attributes?.hits as number) > config.tenantRatePerMinute) {
    throw new RateLimitedError(Math.max(1, (minute + 1) * 60 - seconds));
  }
};
