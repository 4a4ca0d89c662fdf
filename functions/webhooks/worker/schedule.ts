import { logger } from '../../../shared/logger.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import { ports } from '../../../shared/ports/registry.ts';
import { webhookSettings } from '../settings.ts';

/**
 * Seconds before the next attempt, after `attemptsMade` attempts. A receiver's Retry-After (on
 * 429 or 503) may move it later, never sooner than the schedule and at most to twice its delay,
 * as Svix does, so one receiver cannot park a delivery for days.
 */
export const nextDelaySeconds = (attemptsMade: number, retryAfterSeconds: number | null): number => {
  const planned = webhookSettings.retryDelays[attemptsMade - 1];
  if (retryAfterSeconds === null) return planned;
  return Math.min(Math.max(retryAfterSeconds, planned), 2 * planned);
};

/**
 * Puts the delivery back on the queue after `delaySeconds`: as an SQS delay up to 15 minutes,
 * else as a one-time EventBridge schedule that sends it to the queue and deletes itself. A
 * failure here loses nothing: the delivery is already recorded pending with its due time, and
 * the sweeper sends it once that time has passed.
 */
export const enqueueAfter = async (message: DeliveryMessage, delaySeconds: number, attemptNo: number, now: Date): Promise<void> => {
  try {
    if (delaySeconds <= webhookSettings.maxQueueDelaySeconds) {
      await ports().queue.send(message, delaySeconds);
    } else {
      await ports().scheduler.scheduleAt(message, new Date(now.getTime() + delaySeconds * 1000), `dlv-${message.deliveryId}-${attemptNo}`);
    }
  } catch (error) {
    logger.warn('next attempt not queued; the sweeper will send it', { deliveryId: message.deliveryId, error: error as Error });
  }
};
