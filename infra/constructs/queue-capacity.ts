/**
 * How the SQS queues and their Lambda consumers are sized for the account they run in (issue 28,
 * item 2). A new account runs 10 concurrent executions until AWS raises the quota; every queue
 * consumer, every-minute job, stream consumer and API function shares them.
 *
 * AWS's advice for an SQS event source (Lambda Developer Guide, "Using Lambda with Amazon SQS"
 * and "Creating and configuring an Amazon SQS event source mapping"): a visibility timeout of at
 * least six times the function's timeout, so that Lambda can retry a throttled invocation before
 * the batch becomes visible again, and a maxReceiveCount of at least 5 on the redrive policy, so
 * that throttling alone does not send messages to the dead-letter queue. Lambda's operator guide:
 * a throttled invocation is retried until the message's visibility timeout runs out; each new
 * receive after that counts. The mapping's maximum concurrency keeps the mapping from receiving
 * batches beyond it (services-sqs-scaling: not above the function's reserved concurrency, if any).
 *
 * Plain numbers, no CDK: the local stand-ins (infra/local/webhooks.ts) take the same settings.
 */

/** A new account's Lambda quota (Service Quotas, "Concurrent executions"), assumed until one is stated. */
export const DEFAULT_ACCOUNT_CONCURRENCY = 10;

/** The least ScalingConfig.MaximumConcurrency an SQS event source mapping accepts. */
export const SQS_MAPPING_MINIMUM_CONCURRENCY = 2;

/** Visibility timeout ÷ consumer timeout, at least (AWS's advice above). */
export const VISIBILITY_PER_TIMEOUT = 6;

/** Receives before a message is dead-lettered, at least (AWS's advice above). */
export const MINIMUM_MAX_RECEIVE_COUNT = 5;

/** The queue visibility timeout for a consumer with this timeout, both in seconds. */
export const visibilitySeconds = (consumerTimeoutSeconds: number): number => VISIBILITY_PER_TIMEOUT * consumerTimeoutSeconds;

/** The webhook worker's timeout: its 10 s attempt and the writes around it, well inside. */
export const WEBHOOK_WORKER_TIMEOUT_SECONDS = 30;

/** The maximum concurrency of each queue's mapping: a share of the account, between the SQS minimum and a ceiling. */
export interface WorkerConcurrency {
  /** The webhook attempts queue's worker: its old fixed bound of 20 is reached from a quota of 100. */
  webhooks: number;
  /** The import queue's worker: one page a message, the provider limits each token anyway. */
  imports: number;
  /** The route preview queue's worker: one solve holds one execution for up to three minutes. */
  previews: number;
}

const SHARES: Record<keyof WorkerConcurrency, { perAccount: number; ceiling: number }> = {
  webhooks: { perAccount: 1 / 5, ceiling: 20 },
  imports: { perAccount: 1 / 20, ceiling: 5 },
  previews: { perAccount: 1 / 50, ceiling: 2 },
};

/**
 * Each consumer gets its share of the account, never less than SQS's minimum of 2 and never more
 * than its ceiling or the account itself. On a 10-execution account that is 2, 2 and 2: six at
 * most, leaving four for the API, the every-minute jobs and the stream consumers.
 */
export const workerConcurrency = (accountConcurrency: number): WorkerConcurrency => {
  if (!Number.isInteger(accountConcurrency) || accountConcurrency < SQS_MAPPING_MINIMUM_CONCURRENCY) {
    throw new Error(`accountConcurrency must be an integer of at least ${SQS_MAPPING_MINIMUM_CONCURRENCY} (the account's Lambda concurrent executions)`);
  }
  const share = ({ perAccount, ceiling }: { perAccount: number; ceiling: number }) =>
    Math.min(accountConcurrency, ceiling, Math.max(SQS_MAPPING_MINIMUM_CONCURRENCY, Math.floor(accountConcurrency * perAccount)));
  return { webhooks: share(SHARES.webhooks), imports: share(SHARES.imports), previews: share(SHARES.previews) };
};

/** What the webhook attempts queue and its mapping are given: the template's, and the local stand-in's. */
export const attemptsQueueSettings = (accountConcurrency = DEFAULT_ACCOUNT_CONCURRENCY, workerTimeoutSeconds = WEBHOOK_WORKER_TIMEOUT_SECONDS) => ({
  visibilityTimeoutSeconds: visibilitySeconds(workerTimeoutSeconds),
  // Throttling alone never dead-letters an attempt; the sweeper resends one that was.
  maxReceiveCount: MINIMUM_MAX_RECEIVE_COUNT,
  maxConcurrency: workerConcurrency(accountConcurrency).webhooks,
});
