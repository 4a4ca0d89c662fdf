import { epochSeconds, nowIso } from '../../../shared/clock.ts';
import { logger } from '../../../shared/logger.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import { signingSecrets, type EndpointRecord } from '../endpoint-record.ts';
import { findEndpointRecord } from '../endpoints.ts';
import { webhookSettings } from '../settings.ts';
import { systemResolver, type Resolver } from '../transport/resolver.ts';
import { sendAttempt, type AttemptResult } from '../transport/send-attempt.ts';
import { signPayload, webhookHeaders } from '../transport/signature.ts';
import { disableIfFailing } from './auto-disable.ts';
import { claimDelivery } from './claim.ts';
import { failureCountChange, moveFailureCount, recordAttempt, settle } from './record-attempt.ts';
import { enqueueAfter } from './schedule.ts';

let resolver: Resolver = systemResolver;

/** Tests and the local stack answer DNS themselves (a failing or a private answer). */
export const useResolver = (next: Resolver | undefined): void => {
  resolver = next ?? systemResolver;
};

const disabledResult = (now: Date): AttemptResult => ({
  outcome: 'destination_disabled',
  statusCode: null,
  durationMs: 0,
  startedAt: nowIso(now),
  retryAfterSeconds: null,
  detail: 'the destination is disabled',
});

/** One signed POST of the stored body; the webhook id is the notification's, the same on every attempt. */
const attempt = async (record: DeliveryRecord, endpoint: EndpointRecord, now: Date): Promise<AttemptResult> => {
  const timestamp = epochSeconds(new Date());
  const signature = signPayload(await signingSecrets(endpoint, now), record.eventId, timestamp, record.payload);
  return sendAttempt({
    url: endpoint.url,
    body: record.payload,
    headers: webhookHeaders(record.eventId, timestamp, signature),
    allowPrivate: webhookSettings.allowPrivateDestinations,
    resolver,
  });
};

/**
 * The worker's whole job for one queue message: claim, attempt, record, schedule the next.
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
  const endpoint = await findEndpointRecord(record.tenantId, record.endpointId);
  // A test notification goes out even to a disabled destination: it is how one checks a repair.
  const usable = endpoint && (endpoint.state === 'active' || record.eventType === 'webhook.test');
  const result = usable ? await attempt(record, endpoint, now) : disabledResult(now);
  const settledAt = new Date();
  const settlement = settle(record, result);
  await recordAttempt(record, leaseToken, result, settlement, settledAt);
  logger.info('webhook attempt', { deliveryId: record.id, attemptNo: settlement.attemptNo, outcome: result.outcome, status: result.statusCode, state: settlement.state });
  const change = endpoint ? failureCountChange(record, settlement, endpoint.consecutiveFailures) : null;
  if (change) await moveFailureCount(record, change);
  if (change === 'add') await disableIfFailing(endpoint!, settledAt);
  if (settlement.delaySeconds !== null) await enqueueAfter(message, settlement.delaySeconds, settlement.attemptNo + 1, settledAt);
};
