import type { TableAccess } from '../shared/table/access.ts';
import { PREVIEW_DUE_PARTITION_PREFIX } from '../shared/table/keys-operations.ts';
import { DUE_PARTITION_PREFIX } from '../shared/table/keys.ts';

/**
 * A tenant's own partition (`T#<tenant id>`, keys.ts tenantPk) and none of its suffixed ones
 * (`T#<id>#AUDIT`, `#DLV`, ...): tenant ids are UUIDs (the admin CLI takes nothing else), so
 * IAM's `?` (one character each) matches exactly the 36 of one, where `*` would match them all.
 */
export const TENANT_OWN_PARTITION = 'T#????????-????-????-????-????????????';
/** A tenant's audit log (shared/audit/entry.ts) and the outbox's events (keys.event). */
const AUDIT_PARTITIONS = 'T#*#AUDIT';
const EVENT_PARTITIONS = 'EVENT#*';

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
  // then ends it (PutItem) with its audit entry, outbox event and the tenant's count of unfinished
  // previews (UpdateItem; decisions 15, 18). All but the entry and the event are in the tenant's own partition.
  table: {
    items: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'],
    partitions: [TENANT_OWN_PARTITION],
    scopedItems: [{ items: ['PutItem'], partitions: [AUDIT_PARTITIONS, EVENT_PARTITIONS] }],
  },
};

export const previewSweeper: JobFunction = {
  name: 'preview-sweeper',
  entry: 'functions/routing/previews/sweeper-handler.ts',
  // Finds due previews on gsi2's PREVIEWDUE# shards; enters audit entries and outbox events;
  // in the tenant's own partition, moves a re-sent one's next look (UpdateItem) and fails an
  // overdue one (PutItem) with the tenant's count of unfinished previews (UpdateItem).
  table: {
    items: ['PutItem'],
    queries: ['gsi2'],
    partitions: [`${PREVIEW_DUE_PARTITION_PREFIX}*`, AUDIT_PARTITIONS, EVENT_PARTITIONS],
    scopedItems: [{ items: ['UpdateItem', 'PutItem'], partitions: [TENANT_OWN_PARTITION] }],
  },
};

export const jobFunctions: JobFunction[] = [webhookWorker, webhookSweeper, invoiceReconciler, importWorker, importSchedule, previewWorker, previewSweeper];
