import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { heldOrderIds } from './held-orders.ts';

/** Every item of one gsi1 partition (a service date's orders or plans: hundreds, a few pages). */
const queryIndex = async (gsi1pk: string, filter: { expression: string; names: Record<string, string>; values: Record<string, unknown> }): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        FilterExpression: filter.expression,
        ExpressionAttributeNames: filter.names,
        ExpressionAttributeValues: { ':pk': gsi1pk, ...filter.values },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/**
 * The orders a preview of the whole day takes (decisions 15): every `pending` order of the
 * service date that no plan of that date in `preview` or `approved` holds on one of its routes
 * not assigned yet (held-orders.ts).
 * Read through the date's index partitions (opsKeys.ordersByDate, plansByDate), never by
 * reading the tenant's every order; the caller reads the ids found again, consistently.
 */
export const unplannedPendingOrderIds = async (tenantId: string, serviceDate: string): Promise<string[]> => {
  const state = { expression: '#state = :pending', names: { '#state': 'state' }, values: { ':pending': 'pending' } };
  const [orders, plans] = await Promise.all([
    queryIndex(opsKeys.ordersByDate(tenantId, serviceDate, '').gsi1pk, state),
    queryIndex(opsKeys.plansByDate(tenantId, serviceDate, '').gsi1pk, { expression: '#state IN (:preview, :approved)', names: { '#state': 'state' }, values: { ':preview': 'preview', ':approved': 'approved' } }),
  ]);
  const held = await heldOrderIds(tenantId, plans);
  return orders.map((order) => order.orderId as string).filter((id) => !held.has(id));
};
