import { tableDefinition } from './definition.ts';

/**
 * Item actions a function may be granted on the table. IAM authorises a TransactWriteItems per
 * item, as PutItem, UpdateItem, DeleteItem and ConditionCheckItem, so it has no entry of its own.
 */
export type ItemAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'ConditionCheckItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem';

export type IndexName = (typeof tableDefinition.globalIndexes)[number]['indexName'];

/**
 * What one function does with the table, declared beside the function in its manifest
 * (functions/index.ts, functions/stream-consumers.ts, functions/jobs.ts) and granted from there
 * (infra/constructs/data-table.ts). The IAM check of `npm test` fails on an action the
 * function uses and is not granted, and on a granted one no test saw it use.
 */
export interface TableAccess {
  /** Actions on the table's own items. */
  items: readonly ItemAction[];
  /** Indexes the function queries (dynamodb:Query on the index only). */
  queries?: readonly IndexName[];
  /**
   * Partition key patterns (IAM StringLike) every item it touches must match: the
   * `dynamodb:LeadingKeys` condition. For a function that may see only some partitions.
   */
  partitions?: readonly string[];
  /**
   * Further item actions, each set allowed only on its own partitions (a statement of its own),
   * for a function that must write somewhere it may not also do what `items` allows.
   */
  scopedItems?: readonly { items: readonly ItemAction[]; partitions: readonly string[] }[];
}

/** No table use at all. */
export const NO_TABLE: TableAccess = { items: [] };
