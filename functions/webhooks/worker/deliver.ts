import { epochSeconds, nowIso } from '../../../shared/clock.ts';
import { logger } from '../../../shared/logger.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import { signingSecrets, type DestinationSnapshot } from '../endpoint-record.ts';
import { webhookSettings } from '../settings.ts';
import { systemResolver, type Resolver } from '../transport/resolver.ts';
import { sendAttempt, type AttemptResult } from '../transport/send-attempt.ts';
import { signPayload, webhookHeaders } from '../transport/signature.ts';
import { disableIfFailing } from './auto-disable.ts';
import { claimDelivery } from './claim.ts';
import { destinationFor } from './destination.ts';
import { failureCountChange, recordAttempt, settle, type CountChange } from './record-attempt.ts';
import { enqueueAfter } from './schedule.ts';

let resolver: Resolver = systemResolver;

/** Tests and the local stack answer DNS themselves (a failing or a private answer). */
export const useResolver = (next: Resolver | undefined): void => {
  resolver = next ?? systemResolver;
};

/** No request: the destination is disabled, or deleted (decisions 5). */
const notSentResult = (now: Date, outcome: 'destination_disabled' | 'destination_deleted'): AttemptResult => ({
  outcome,
  statusCode: null,
  durationMs: 0,
  startedAt: nowIso(now),
  retryAfterSeconds: null,
  responseExcerpt: null,
  detail: outcome === 'destination_deleted' ? 'the destination was deleted' : 'the destination is disabled',
});

/** One signed POST of the stored body; the webhook id is the notification's, the same on every attempt. */
const attempt = async (record: DeliveryRecord, destination: DestinationSnapshot, now: Date): Promise<AttemptResult> => {
  const timestamp = epochSeconds(new Date());
  const secrets = await signingSecrets({ ...destination, tenantId: record.tenantId, id: record.endpointId }, now);
  const signature = signPayload(secrets, record.eventId, timestamp, record.payload);
  return sendAttempt({
    url: destination.url,
    body: record.payload,
    headers: webhookHeaders(record.eventId, timestamp, signature),
    allowPrivate: webhookSettings.allowPrivateDestinations,
    resolver,
  });
};

/** The copy kept on the delivery after the record: its count as this record leaves it. */
const keptCopy = (destination: DestinationSnapshot, change: CountChange | null): DestinationSnapshot =>
  change ? { ...destination, consecutiveFailures: change === 'add' ? destination.consecutiveFailures + 1 : 0 } : destination;

/**
 * The worker's whole job for one queue message: claim, attempt, record, schedule the next. Two
 * table calls: the claim (which returns the delivery and the destination copy it carries) and
 * the record (with the failure count when it moves); a third, a read of the destination, only
 * when the copy is older than `destinationSnapshotSeconds`; and the disabling transaction when
 * this death brings the destination to 20.
 * A message for a delivery that is not due (early, or already taken) is dropped; if it is early
 * it goes back on the queue for the rest of its wait.
 */
export const processDelivery = async (message: DeliveryMessage, now = new Date()): Promise<void> => {
  const claim = await claimDelivery(message, now);
  if (!claim.claimed) {
    const waiting = claim.record?.state === 'pending' && claim.record.nextAttemptAt ? new Date(claim.record.nextAttemptAt).getTime() - now.getTime() : 0;
    if (waiting > 0 && waiting / 1000 <= webhookSettings.maxQueueDelaySeconds) await enqueueAfter(message, Math.ceil(waiting / 1000), claim.record!.attempts + 1, now);
    return;
  }
  const { record, leaseToken } = claim;
  const destination = await destinationFor(record, now);
  const copy = destination?.snapshot;
  // A test notification goes out even to a disabled destination: it is how one checks a repair.
  const usable = copy && (copy.state === 'active' || record.eventType === 'webhook.test');
  const result = usable ? await attempt(record, copy, now) : notSentResult(now, copy ? 'destination_disabled' : 'destination_deleted');
  const settledAt = new Date();
  const settlement = settle(record, result);
  const change = copy ? failureCountChange(record, settlement, copy.consecutiveFailures) : null;
  const recorded = await recordAttempt(record, leaseToken, result, settlement, settledAt, {
    countChange: change,
    snapshot: destination?.read ? keptCopy(destination.snapshot, change) : undefined,
    url: copy?.url,
  });
  logger.info('webhook attempt', { deliveryId: record.id, attemptNo: settlement.attemptNo, outcome: result.outcome, status: result.statusCode, state: settlement.state });
  if (recorded.reachedDisableLimit) await disableIfFailing({ tenantId: record.tenantId, id: record.endpointId, url: copy!.url }, settledAt, { failures: recorded.failuresAfter ?? undefined });
  if (settlement.delaySeconds !== null) await enqueueAfter(message, settlement.delaySeconds, settlement.attemptNo + 1, settledAt);
};
