import { DAY_SECONDS, epochSeconds, nowIso } from '../../shared/clock.ts';
import { GoneError, NotFoundError, StateConflictError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import { newId } from '../../shared/ids.ts';
import { keys } from '../../shared/table/keys.ts';
import { tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { createdAtOfId, deliveryIdFor, findDeliveryRecord, isExpired, newDelivery, putNewDelivery, toDelivery, toDeliveryRecord, type DeliveryRecord } from './delivery-record.ts';
import type { EndpointRecord } from './endpoint-record.ts';
import type { Delivery, DeliveryState } from './schemas.ts';
import { DELIVERY_RETENTION_DAYS, webhookSettings } from './settings.ts';

const RETENTION_MS = DELIVERY_RETENTION_DAYS * DAY_SECONDS * 1000;
/** A filtered page (a rare state) reads at most this many deliveries, then answers a cursor. */
export const MAX_ITEMS_READ_PER_PAGE = 200;

export interface DeliveryFilter {
  state?: DeliveryState;
  before?: string;
  limit: number;
  endpointId?: string;
}

/**
 * Newest first; deliveries past retention are left out even before DynamoDB deletes them. A page
 * may hold fewer items than `limit` (even none) with a cursor: the read budget ran out first.
 */
export const listDeliveries = (tenantId: string, filter: DeliveryFilter, now: Date): Promise<Page<Delivery>> => {
  const conditions = ['expiresAt > :now', ...(filter.state ? ['#state = :state'] : [])];
  return queryPage(
    {
      pk: filter.endpointId ? keys.deliveryByEndpointPartition(filter.endpointId) : keys.deliveryPartition(tenantId),
      prefix: keys.deliveryPrefix,
      index: filter.endpointId ? { name: 'gsi1', tableKey: (id) => keys.delivery(tenantId, id) } : undefined,
      after: filter.before,
      limit: filter.limit,
      maxItemsRead: MAX_ITEMS_READ_PER_PAGE,
      newestFirst: true,
      filter: {
        FilterExpression: [...conditions, 'tenantId = :tenant'].join(' AND '),
        ExpressionAttributeNames: filter.state ? { '#state': 'state' } : undefined,
        ExpressionAttributeValues: { ':now': epochSeconds(now), ':tenant': tenantId, ...(filter.state ? { ':state': filter.state } : {}) },
      },
    },
    (item) => toDelivery(toDeliveryRecord(item)),
    (delivery) => delivery.id,
  );
};

/** 404 for a delivery never made (or another tenant's), 410 once its 30 days have passed. */
export const getDeliveryRecord = async (tenantId: string, deliveryId: string, now: Date): Promise<DeliveryRecord> => {
  const record = await findDeliveryRecord(tenantId, deliveryId);
  const gone = () => new GoneError('This delivery is older than 30 days; its log has been deleted.');
  if (!record) {
    // DynamoDB deletes expired items a while after; an id older than the retention tells why.
    if (now.getTime() - createdAtOfId(deliveryId).getTime() > RETENTION_MS) throw gone();
    throw new NotFoundError('No webhook delivery with this id.');
  }
  if (isExpired(record, now)) throw gone();
  return record;
};

/** The receiver's own words may hold what only admins should see: other roles get the log without them. */
export const deliveryDetail = (record: DeliveryRecord, view: { revealExcerpts: boolean }) => {
  const envelope = JSON.parse(record.payload) as { id: string; type: Delivery['eventType']; timestamp: string; data: Record<string, unknown> };
  return {
    ...toDelivery(record),
    event: { id: envelope.id, type: envelope.type, occurredAt: envelope.timestamp, data: envelope.data },
    attemptLog: view.revealExcerpts ? record.attemptLog : record.attemptLog.map(({ responseExcerpt: _hidden, ...entry }) => entry),
    attemptLogOmitted: record.attemptLogOmitted,
  };
};

/**
 * A manual retry: allowed once a delivery has settled (dead or succeeded), it becomes pending
 * again in manual mode; the table stream hands it to the queue (nothing is sent from here).
 * At most WEBHOOK_MAX_MANUAL_RETRIES (20) per delivery: 409 `retry_limit_reached` after that.
 */
export const retryDelivery = async (tenantId: string, deliveryId: string, now: Date): Promise<{ delivery: Delivery; writes: Write[] }> => {
  const record = await getDeliveryRecord(tenantId, deliveryId, now);
  if (record.state !== 'dead' && record.state !== 'succeeded') {
    throw new StateConflictError(`The delivery is ${record.state}; only a dead or succeeded delivery can be retried.`);
  }
  const max = webhookSettings.maxManualRetries;
  const limitReached = () => new StateConflictError(`The delivery was retried by hand ${max} times, the most allowed.`, 'retry_limit_reached');
  if (record.manualRetries >= max) throw limitReached();
  const at = nowIso(now);
  const retried: DeliveryRecord = { ...record, state: 'pending', mode: 'manual', manualRetries: record.manualRetries + 1, nextAttemptAt: at };
  const due = keys.deliveryDue(record.id, at);
  return {
    delivery: toDelivery(retried),
    writes: [
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.delivery(tenantId, deliveryId),
            // The copy of the destination goes: a retry acts on the destination as it is (deleted, say).
            UpdateExpression: 'SET #state = :pending, #mode = :manual, manualRetries = manualRetries + :one, nextAttemptAt = :at, gsi2pk = :duePk, gsi2sk = :dueSk REMOVE destination, requeuedBy',
            ConditionExpression: '#state = :was AND manualRetries < :max',
            ExpressionAttributeNames: { '#state': 'state', '#mode': 'mode' },
            ExpressionAttributeValues: { ':pending': 'pending', ':manual': 'manual', ':one': 1, ':at': at, ':duePk': due.gsi2pk, ':dueSk': due.gsi2sk, ':was': record.state, ':max': max },
          },
        },
        onConditionFailed: (old) =>
          (old?.manualRetries as number) >= max ? limitReached() : new StateConflictError('The delivery changed meanwhile; read it again.', 'concurrent_update'),
      },
    ],
  };
};

/**
 * The test operation: a webhook.test event for one destination, whatever its event kinds, and
 * its delivery, made in one transaction; the fan-out sees the event and queues the delivery.
 */
export const testDelivery = (tenantId: string, endpoint: { record: EndpointRecord; readAt: Date }, now: Date): { delivery: Delivery; writes: Write[] } => {
  const endpointId = endpoint.record.id;
  const eventId = newId();
  const occurredAt = nowIso(now);
  const deliveryId = deliveryIdFor(eventId, endpointId, occurredAt);
  const { event, write } = outboxEvent(tenantId, 'webhook.test', { endpointId, message: 'Test notification from the delivery operations service.' }, now, {
    id: eventId,
    target: { endpointId, deliveryId },
  });
  const record = newDelivery(event, endpoint, now);
  return { delivery: toDelivery(record), writes: [putNewDelivery(record), write] };
};
