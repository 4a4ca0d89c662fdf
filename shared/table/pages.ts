import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from './client.ts';

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

interface PageRequest {
  pk: string;
  /** Query a GSI whose sort key is the bare id (gsi1 of deliveries) instead of the table. */
  index?: { name: 'gsi1' | 'gsi2' | 'gsi3'; tableKey: (id: string) => { pk: string; sk: string } };
  /** Items' sort keys are `${prefix}${id}` with time-ordered ids, so the cursor is an id. */
  prefix: string;
  after?: string;
  limit: number;
  /** Oldest first by default; `before` pages walk newest first. */
  newestFirst?: boolean;
  filter?: Pick<QueryCommandInput, 'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;
  /**
   * With a filter, at most this many items are read for one page (DynamoDB's Limit counts items
   * read, not items kept). A page that runs out of it answers what it found, possibly nothing,
   * and a cursor at the last item read, so a rare state cannot make one page read a partition.
   */
  maxItemsRead?: number;
}

/**
 * One page of a partition's items under a prefix. It asks for one item more than the page so
 * that nextCursor is null exactly on the last page.
 */
export const queryPage = async <T>(request: PageRequest, toItem: (raw: Record<string, unknown>) => T, idOf: (item: T) => string): Promise<Page<T>> => {
  const { pk, prefix, after, limit, newestFirst = false } = request;
  const collected: Record<string, unknown>[] = [];
  const index = request.index;
  const startKey = (id: string): Record<string, unknown> =>
    index ? { [`${index.name}pk`]: pk, [`${index.name}sk`]: `${prefix}${id}`, ...index.tableKey(id) } : { pk, sk: `${prefix}${id}` };
  let exclusiveStartKey: Record<string, unknown> | undefined = after ? startKey(after) : undefined;
  const budget = request.maxItemsRead === undefined ? Infinity : Math.max(request.maxItemsRead, limit + 1);
  let read = 0;
  do {
    const { Items = [], LastEvaluatedKey, ScannedCount = Items.length } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index?.name,
        KeyConditionExpression: index ? `${index.name}pk = :pk AND begins_with(${index.name}sk, :prefix)` : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ...(request.filter?.ExpressionAttributeValues ?? {}) },
        ExpressionAttributeNames: request.filter?.ExpressionAttributeNames,
        FilterExpression: request.filter?.FilterExpression,
        ExclusiveStartKey: exclusiveStartKey,
        ScanIndexForward: !newestFirst,
        // First what the page needs; if a filter dropped items, the rest of the budget at once.
        Limit: read === 0 || budget === Infinity ? limit + 1 - collected.length : budget - read,
      }),
    );
    collected.push(...Items);
    read += ScannedCount;
    exclusiveStartKey = LastEvaluatedKey;
  } while (collected.length <= limit && exclusiveStartKey && read < budget);
  const items = collected.slice(0, limit).map(toItem);
  if (collected.length > limit) return { items, nextCursor: items.length > 0 ? idOf(items[items.length - 1]) : null };
  // The read budget ran out before the page filled: go on from the last item read.
  const sortKey = exclusiveStartKey?.[index ? `${index.name}sk` : 'sk'];
  return { items, nextCursor: typeof sortKey === 'string' ? sortKey.slice(prefix.length) : null };
};
