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
/** Pending orders of the day as POST /v1/distribution/orders stores them, one per point, in batches of 25. */
export const seedOrders = async (tenantId: string, points: [number, number][], serviceDate: string, prefix = 'PED'): Promise<SeededOrder[]> => {
  const at = new Date().toISOString();
  const orders: OrderRecord[] = points.map(([latitude, longitude], i) => ({
    id: newId(),
    reference: `${prefix}-${i + 1}-${newId().slice(-6)}`,
    recipient: { name: 'María José Pérez', phone: null, email: null },
    address: { text: `Calle ${i + 1}, Santiago`, latitude, longitude, municipality: null, city: null },
    serviceDate,
    lines: [],
    customerId: null,
    customerExternalId: null,
    connectionId: null,
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

