import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '../../shared/clock.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';

/** The floor of the calls every authenticated request makes before its own: membership and the tenant's rate. */
export const gate = (tenantId: string, subject: string) =>
  Promise.all([
    table().send(new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, subject), ConsistentRead: true })),
    table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateWindow(tenantId, Math.floor(Date.now() / 60_000)),
        UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :e)',
        ExpressionAttributeValues: { ':one': 1, ':e': epochSeconds() + 120 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ),
  ]);
