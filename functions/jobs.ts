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
  // Claims and records attempts on the delivery (with the destination's failure count in the same
  // transaction when it moves); reads the destination when the delivery's copy of it is old, and a
  // delivery it could not claim; gsi1 for the destination's pending deliveries; auto-disable gives
  // back the destination's URL guard and writes its audit entry.
  table: { items: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], queries: ['gsi1'] },
};

export const webhookSweeper: JobFunction = {
  name: 'webhook-sweeper',
  entry: 'functions/webhooks/sweeper/handler.ts',
  // The due index's shards, to read which deliveries are overdue, and the audit log, where each
  // resend is entered; UpdateItem only on deliveries, to move a resent one's due time.
  table: { items: ['PutItem'], queries: ['gsi2'], partitions: [`${DUE_PARTITION_PREFIX}*`, 'T#*#AUDIT'], scopedItems: [{ items: ['UpdateItem'], partitions: ['T#*#DLV'] }] },
};

export const invoiceReconciler: JobFunction = {
  name: 'invoice-reconciler',
  entry: 'functions/invoicing/reconciler/handler.ts',
  // Finds unsettled intents on gsi2, reads the intent and its connection, commits the settled state
  // (an approved dispatch guide: issues it, its stop's guide item updated with each move);
  // UpdateItem moves a failed intent's next look later, or takes a revoked connection's off the index.
  table: { items: ['GetItem', 'PutItem', 'UpdateItem'], queries: ['gsi2'] },
};

export const importWorker: JobFunction = {
  name: 'import-worker',
  entry: 'functions/records/imports/worker-handler.ts',
  // Reads the import, its connection and the page's stored records (BatchGetItem), then commits the
  // page: progress, records, conflicts, audit entry, and on the last page the lock's release and the event.
  // Provider notices: the company's connections and pending notices (Query), its read budget and
  // drain marker (UpdateItem), each notice's progress, and its deletion once read.
  // Dispatch guides (issue 17): a route's guide items (Query), each intent, its connection and
  // tenant (GetItem), the intent's moves with its stop's guide item (PutItem, UpdateItem).
  table: { items: ['GetItem', 'BatchGetItem', 'PutItem', 'DeleteItem', 'Query', 'UpdateItem'] },
};

export const importSchedule: JobFunction = {
  name: 'import-schedule',
  entry: 'functions/records/imports/schedule-handler.ts',
  // Finds active connections on the sparse gsi2 partition, reads each one's lock and import, and
  // starts an import (lock, import, company entry, audit entry) where none runs.
  table: { items: ['GetItem', 'PutItem'], queries: ['gsi2'] },
};

export const previewWorker: JobFunction = {
  name: 'preview-worker',
  entry: 'functions/routing/previews/worker-handler.ts',
  // Reads the preview and its orders (BatchGetItem); claims it (UpdateItem) with its audit entry,
  // then ends it (PutItem) with its audit entry and outbox event (decisions 15).
  table: { items: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'] },
};

export const previewSweeper: JobFunction = {
  name: 'preview-sweeper',
  entry: 'functions/routing/previews/sweeper-handler.ts',
  // Finds due previews on gsi2's PREVIEWDUE# shards; moves a re-sent one's next look (UpdateItem);
  // fails an overdue one (PutItem) with its audit entry and outbox event.
  table: { items: ['UpdateItem', 'PutItem'], queries: ['gsi2'] },
};

export const jobFunctions: JobFunction[] = [webhookWorker, webhookSweeper, invoiceReconciler, importWorker, importSchedule, previewWorker, previewSweeper];
