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
  do {
    const { Items = [], LastEvaluatedKey } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index?.name,
        KeyConditionExpression: index ? `${index.name}pk = :pk AND begins_with(${index.name}sk, :prefix)` : 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ...(request.filter?.ExpressionAttributeValues ?? {}) },
        ExpressionAttributeNames: request.filter?.ExpressionAttributeNames,
        FilterExpression: request.filter?.FilterExpression,
        ExclusiveStartKey: exclusiveStartKey,
        ScanIndexForward: !newestFirst,
        Limit: limit + 1,
      }),
    );
    collected.push(...Items);
    exclusiveStartKey = LastEvaluatedKey;
  } while (collected.length <= limit && exclusiveStartKey);
  const items = collected.slice(0, limit).map(toItem);
  const more = collected.length > limit;
  return { items, nextCursor: more && items.length > 0 ? idOf(items[items.length - 1]) : null };
};
