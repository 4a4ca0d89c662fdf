import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent as batchGet } from '../../records/batch-get.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import { claimGuard } from './guard.ts';
import { tenantPk } from '../../../shared/table/keys.ts';
import { intentsById, type IntentRecord } from '../intent-record.ts';

export const ORDER_GUIDE_ENTITY = 'order-guide';

/**
 * An order's guide (decisions 16: at most one live guide per order, whatever its routes): the
 * item names the order's latest guide intent, and its Put is conditional, so two routes (or two
 * requests) cannot both make one. It holds no state: whether the guide is live is read from the
 * intent itself, whose dead states (cancelled, rejected) are final, so a guide read dead stays
 * dead and a claim that replaces it needs only the condition on the name.
 * Not under `ORDER#` (the orders' prefix): a page of orders never meets it.
 */
export interface OrderGuideRecord {
  tenantId: string;
  orderId: string;
  intentId: string;
  updatedAt: string;
}

export const orderGuideKey = (tenantId: string, orderId: string) => ({ pk: tenantPk(tenantId), sk: `ORDERGUIDE#${orderId}` });

const toOrderGuide = (item: Record<string, unknown>): OrderGuideRecord => ({
  tenantId: item.tenantId as string,
  orderId: item.orderId as string,
  intentId: item.intentId as string,
  updatedAt: item.updatedAt as string,
});

/** Claims the order for `guide`: only when it has none, or when the one it names is `previousIntentId` (read dead). */
export const claimOrder = (guide: OrderGuideRecord, previousIntentId: string | undefined): Write =>
  claimGuard({ ...orderGuideKey(guide.tenantId, guide.orderId), entity: ORDER_GUIDE_ENTITY, ...guide }, previousIntentId);

export const findOrderGuide = async (tenantId: string, orderId: string): Promise<OrderGuideRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: orderGuideKey(tenantId, orderId), ConsistentRead: true }));
  return Item ? toOrderGuide(Item) : undefined;
};

/** Each order's guide intent as it stands now (orders without a guide are absent). */
export const orderGuideIntents = async (tenantId: string, orderIds: string[]): Promise<Map<string, IntentRecord>> => {
  const unique = [...new Set(orderIds)];
  const guards = (await batchGet(unique.map((id) => orderGuideKey(tenantId, id)))).map(toOrderGuide);
  return intentsById(tenantId, guards.map((g) => g.intentId)).then((byId) => {
    const byOrder = new Map<string, IntentRecord>();
    for (const guard of guards) {
      const intent = byId.get(guard.intentId);
      if (intent) byOrder.set(guard.orderId, intent);
    }
    return byOrder;
  });
};
