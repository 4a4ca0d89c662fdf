import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../../shared/table/client.ts';

/** A stored item as a scan reads it: the invariants check what is in the table, not what the API says. */
export type Item = Record<string, any>;

/** The whole table (it holds one chaos run), read directly, as the invariants must not trust the API. */
export const scanTable = async (): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
};
