import { importWorker, jobFunctions, previewWorker, webhookWorker } from '../functions/jobs.ts';
import { streamConsumerGroups } from '../functions/stream-consumers.ts';
import { workerConcurrency } from './constructs/queue-capacity.ts';

/**
 * The account's Lambda concurrency, counted (issue 33, item 6; docs/capacity.md). Every function
 * of the stack shares the account's executions; the background takes what it can at most, and the
 * API must keep API_SHARE of the account, else `npm run deploy` refuses and names the quota to ask for.
 *
 * - A queue worker: its mapping's maximum concurrency (queue-capacity.ts).
 * - A table stream consumer: one execution per shard at most (ParallelizationFactor 1, Lambda's
 *   default). A new on-demand table starts able to take 4,000 writes and 12,000 reads a second
 *   (DynamoDB Developer Guide, "Pre-warming a table for on-demand capacity mode"), that is 4
 *   partitions of 1,000 writes and 3,000 reads each ("Best practices for designing and using
 *   partition keys"), and a stream has a shard per partition: 4 shards. A partition that splits
 *   adds one; `tableStreamShards` states a grown table's figure.
 * - A scheduled job: one execution, its timeout being shorter than its period (the every-minute
 *   ones 50 s, the hourly import 5 minutes, the origin secret's rotation once in 30 days).
 */

/** Shards of a new on-demand table's stream. */
export const NEW_TABLE_STREAM_SHARDS = 4;

/** The API keeps at least this share of the account's executions. */
export const API_SHARE = 0.5;

/** What AWS usually grants an account asked for more (and the default of an established one). */
export const USUAL_QUOTA = 1000;

/** The queue workers, counted by their mapping's maximum concurrency. */
const QUEUE_WORKERS = new Set([webhookWorker.name, importWorker.name, previewWorker.name]);

/** Scheduled functions: every job that no queue invokes, and the origin secret's rotation. */
export const SCHEDULED_FUNCTIONS = [...jobFunctions.filter((job) => !QUEUE_WORKERS.has(job.name)).map((job) => job.name), 'origin-secret-rotation'];

export interface BackgroundItem {
  name: string;
  kind: 'queue worker' | 'stream consumer' | 'scheduled';
  executions: number;
}

export interface CapacityPlan {
  accountConcurrency: number;
  shards: number;
  background: BackgroundItem[];
  /** The most the background may hold at once. */
  backgroundTotal: number;
  /** What that leaves the API. */
  api: number;
  /** The least the API must keep (API_SHARE of the account). */
  apiFloor: number;
  fits: boolean;
  /** The least account quota at which it fits. */
  quotaNeeded: number;
}

const background = (accountConcurrency: number, shards: number): BackgroundItem[] => {
  // Below SQS's minimum the mappings still take their 2.
  const workers = workerConcurrency(Math.max(accountConcurrency, 2));
  return [
    { name: webhookWorker.name, kind: 'queue worker', executions: workers.webhooks },
    { name: importWorker.name, kind: 'queue worker', executions: workers.imports },
    { name: previewWorker.name, kind: 'queue worker', executions: workers.previews },
    ...streamConsumerGroups.map((g) => ({ name: g.name, kind: 'stream consumer' as const, executions: shards })),
    ...SCHEDULED_FUNCTIONS.map((name) => ({ name, kind: 'scheduled' as const, executions: 1 })),
  ];
};

const fitsAt = (accountConcurrency: number, shards: number) => {
  const total = background(accountConcurrency, shards).reduce((sum, item) => sum + item.executions, 0);
  return accountConcurrency - total >= Math.ceil(accountConcurrency * API_SHARE);
};

export const capacityPlan = (accountConcurrency: number, shards = NEW_TABLE_STREAM_SHARDS): CapacityPlan => {
  if (!Number.isInteger(shards) || shards < 1) throw new Error('tableStreamShards must be a positive integer');
  const items = background(accountConcurrency, shards);
  const backgroundTotal = items.reduce((sum, item) => sum + item.executions, 0);
  const apiFloor = Math.ceil(accountConcurrency * API_SHARE);
  let quotaNeeded = accountConcurrency;
  while (!fitsAt(quotaNeeded, shards)) quotaNeeded++;
  return { accountConcurrency, shards, background: items, backgroundTotal, api: accountConcurrency - backgroundTotal, apiFloor, fits: accountConcurrency - backgroundTotal >= apiFloor, quotaNeeded };
};
