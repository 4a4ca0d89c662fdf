import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { orderItem, type OrderRecord } from '../../functions/orders/records.ts';
import { newTrackingToken } from '../../functions/orders/tracking-token.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { newId } from '../../shared/ids.ts';
import { table, tableName } from '../../shared/table/client.ts';

export interface SeededOrder {
  id: string;
  reference: string;
  state: string;
  version: number;
  /** Relative: `/t/{token}`. */
  trackingUrl: string;
}

/**
 * Orders written straight to the table as the create stores them. The stream still sees them, so
 * the tracking projection builds their views as for any order; what a create adds besides (its
 * event, audit entry and idempotency record) is left out. Hundreds of creates through the API cost
 * minutes of a loaded run in the files that only need the orders to exist.
 */
export interface SeedOptions {
  /**
   * A stored order (one created through the API, read with getOrderRecord) whose goods the seeded
   * orders copy: its lines (with the provider ids the create resolved), connection, customer and
   * the address's comuna and city. Without it: orders without goods.
   */
  goodsOf?: OrderRecord;
}

/** Pending orders of the day as POST /v1/distribution/orders stores them, one per point, in batches of 25. */
export const seedOrders = async (tenantId: string, points: [number, number][], serviceDate: string, prefix = 'PED', options: SeedOptions = {}): Promise<SeededOrder[]> => {
  const at = new Date().toISOString();
  const like = options.goodsOf;
  const orders: OrderRecord[] = points.map(([latitude, longitude], i) => ({
    id: newId(),
    reference: `${prefix}-${i + 1}-${newId().slice(-6)}`,
    recipient: { name: 'María José Pérez', phone: null, email: null },
    address: { text: `Calle ${i + 1}, Santiago`, latitude, longitude, municipality: like?.address.municipality ?? null, city: like?.address.city ?? null },
    serviceDate,
    lines: like ? structuredClone(like.lines) : [],
    customerId: like?.customerId ?? null,
    customerExternalId: like?.customerExternalId ?? null,
    connectionId: like?.connectionId ?? null,
    timeWindows: [],
    serviceMinutes: 5,
    load: { weightKg: 0, volumeM3: 0 },
    skills: [],
    state: 'pending',
    trackingToken: newTrackingToken(),
    routeId: null,
    stopId: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    cancelledAt: null,
  }));
  for (let i = 0; i < orders.length; i += 25) {
    let requests: Record<string, any[]> | undefined = { [tableName()]: orders.slice(i, i + 25).map((order) => ({ PutRequest: { Item: orderItem(tenantId, order) } })) };
    while (requests && Object.keys(requests).length > 0) {
      const batch: Record<string, any[]> = requests;
      requests = (await runAs(OPERATOR, () => table().send(new BatchWriteCommand({ RequestItems: batch })))).UnprocessedItems as Record<string, any[]> | undefined;
    }
  }
  return orders.map((order) => ({ id: order.id, reference: order.reference, state: order.state, version: order.version, trackingUrl: `/t/${order.trackingToken}` }));
};

