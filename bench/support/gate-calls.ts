import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds } from '../../shared/clock.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';

/**
 * The two DynamoDB calls every authenticated request makes before its own, made directly with
 * the document client (the floor of the benchmarks): the membership read and the rate counter.
 */
export const memberRead = (tenantId: string, subject: string) =>
  table().send(new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, subject), ConsistentRead: true }));

export const rateCount = (tenantId: string) =>
  table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(tenantId, Math.floor(Date.now() / 60_000)),
      UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :e)',
      ExpressionAttributeValues: { ':one': 1, ':e': epochSeconds() + 120 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
