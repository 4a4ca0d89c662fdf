import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';

/**
 * Whether the service date has more than `max` pending orders, counted before any order is read
 * (decisions 18): a Select COUNT query of the date's index partition answers numbers only, page
 * by page (1 MB of items each), and stops as soon as the count passes `max`.
 */
export const pendingOrdersExceed = async (tenantId: string, serviceDate: string, max: number): Promise<{ exceeds: boolean; counted: number }> => {
  let counted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        Select: 'COUNT',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pk': opsKeys.ordersByDate(tenantId, serviceDate, '').gsi1pk, ':pending': 'pending' },
        ExclusiveStartKey: startKey,
      }),
    );
    counted += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && counted <= max);
  return { exceeds: counted > max, counted };
};
