/**
 * Webhook delivery settings. The defaults are the specification's; the local stack and tests
 * may shorten the delays (WEBHOOK_RETRY_DELAYS) and allow loopback receivers
 * (WEBHOOK_ALLOW_PRIVATE_DESTINATIONS=1, which the CDK stack never sets).
 */
export const DEFAULT_RETRY_DELAYS = [5, 300, 1800, 7200, 18000, 36000, 36000];
export const MAX_ATTEMPTS = 8;
export const DISABLE_AFTER_DEAD_DELIVERIES = 20;
export const DELIVERY_RETENTION_DAYS = 30;
/** The attempt log keeps its first entries and its latest ones, and counts what it left out. */
export const ATTEMPT_LOG_FIRST = 3;
export const ATTEMPT_LOG_MAX = 20;

const env = process.env;

export const webhookSettings = {
  /** Seconds before attempts 2..8. */
  get retryDelays(): number[] {
    const raw = env.WEBHOOK_RETRY_DELAYS;
    if (!raw) return DEFAULT_RETRY_DELAYS;
    const delays = raw.split(',').map((d) => Number(d.trim()));
    if (delays.length !== MAX_ATTEMPTS - 1 || delays.some((d) => !Number.isInteger(d) || d < 0)) {
      throw new Error(`WEBHOOK_RETRY_DELAYS must be ${MAX_ATTEMPTS - 1} whole numbers of seconds`);
    }
    return delays;
  },
  /** A claimed attempt that has not settled by then is taken as crashed; well past the 10 s limit. */
  get leaseSeconds(): number {
    return Number(env.WEBHOOK_LEASE_SECONDS ?? 60);
  },
  get allowPrivateDestinations(): boolean {
    return env.WEBHOOK_ALLOW_PRIVATE_DESTINATIONS === '1';
  },
  /** Active destinations a tenant may have (422 over it, on create and on reactivation). */
  get maxActiveEndpoints(): number {
    return Number(env.WEBHOOK_MAX_ACTIVE_ENDPOINTS ?? 100);
  },
  /** Manual retries of one delivery (409 over it): each adds to its attempt log and to a receiver's load. */
  get maxManualRetries(): number {
    return Number(env.WEBHOOK_MAX_MANUAL_RETRIES ?? 20);
  },
  /**
   * An attempt acts on the destination copy its delivery carries only while the copy is at most
   * this old (the attempt's own 10 s limit); an older one is read again (docs/webhooks.md).
   */
  get destinationSnapshotSeconds(): number {
    return Number(env.WEBHOOK_DESTINATION_SNAPSHOT_SECONDS ?? 10);
  },
  /**
   * A running recovery's lock is leased for this long, renewed by each page; the sweeper takes
   * over one whose lease ran out (a page message lost or dead-lettered) and resumes it.
   */
  get recoveryLeaseSeconds(): number {
    return Number(env.WEBHOOK_RECOVERY_LEASE_SECONDS ?? 300);
  },
  /** Recoveries of one tenant running at once (409 recoveries_limit over it): they share the attempts queue. */
  get maxRunningRecoveries(): number {
    return Number(env.WEBHOOK_MAX_RUNNING_RECOVERIES ?? 5);
  },
  /** Delays up to this go to SQS as DelaySeconds; longer ones through EventBridge Scheduler. */
  get maxQueueDelaySeconds(): number {
    return Number(env.WEBHOOK_MAX_QUEUE_DELAY_SECONDS ?? 900);
  },
};
