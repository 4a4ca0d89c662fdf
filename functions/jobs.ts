import type { TableAccess } from '../shared/table/access.ts';
import { DUE_PARTITION_PREFIX } from '../shared/table/keys.ts';

/**
 * Functions that no route and no table stream invoke: a queue's consumer, a scheduled job.
 * The CDK stack makes one Lambda each under `name`; the local stack's stand-ins invoke the same
 * handler as `name`, so the IAM check holds their AWS calls against that Lambda's role.
 */
export interface JobFunction {
  name: string;
  /** The handler module, relative to the project root; it exports `handler`. */
  entry: string;
  /** What the job does with the table; its role is granted exactly this. */
  table: TableAccess;
}

export const webhookWorker: JobFunction = {
  name: 'webhook-worker',
  entry: 'functions/webhooks/worker/handler.ts',
  // Claims and records attempts on the delivery and its destination; gsi1 for the destination's latest deliveries (auto-disable).
  table: { items: ['GetItem', 'UpdateItem'], queries: ['gsi1'] },
};

export const webhookSweeper: JobFunction = {
  name: 'webhook-sweeper',
  entry: 'functions/webhooks/sweeper/handler.ts',
  // Only the due index's shards: it reads which deliveries are overdue and writes nothing.
  table: { items: [], queries: ['gsi2'], partitions: [`${DUE_PARTITION_PREFIX}*`] },
};

export const jobFunctions: JobFunction[] = [webhookWorker, webhookSweeper];
