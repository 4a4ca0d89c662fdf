import { snapshotOf, type DestinationSnapshot } from '../endpoint-record.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import { findEndpointRecord } from '../endpoints.ts';
import { webhookSettings } from '../settings.ts';

export interface AttemptDestination {
  snapshot: DestinationSnapshot;
  /** Read by this attempt: the record stores it on the delivery for the next attempts. */
  read: boolean;
}

/**
 * The destination an attempt acts on. The delivery carries a copy made when the destination was
 * last read for it (by the fan-out, a test notification or an earlier attempt); while that copy
 * is at most `destinationSnapshotSeconds` old it is used as is, and the attempt makes no read of
 * its own. An older copy, or none, is replaced by a strongly consistent read. Undefined: the
 * destination is gone.
 */
export const destinationFor = async (record: DeliveryRecord, now: Date): Promise<AttemptDestination | undefined> => {
  const copy = record.destination;
  if (copy && now.getTime() - new Date(copy.takenAt).getTime() <= webhookSettings.destinationSnapshotSeconds * 1000) return { snapshot: copy, read: false };
  const readAt = new Date();
  const endpoint = await findEndpointRecord(record.tenantId, record.endpointId);
  return endpoint ? { snapshot: snapshotOf(endpoint, readAt), read: true } : undefined;
};
