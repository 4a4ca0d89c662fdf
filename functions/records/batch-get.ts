import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../../shared/table/client.ts';

type Key = Record<string, unknown>;

/** Items by key, read consistently, 100 keys a request, unprocessed keys asked again with backoff. */
export const batchGetConsistent = async (keyList: Key[]): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = [];
  for (let i = 0; i < keyList.length; i += 100) {
    let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = { [tableName()]: { Keys: keyList.slice(i, i + 100), ConsistentRead: true } };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 50 * 2 ** attempt)));
      const answer = await table().send(new BatchGetCommand({ RequestItems: request }));
      found.push(...(answer.Responses?.[tableName()] ?? []));
      request = answer.UnprocessedKeys as typeof request;
    }
  }
  return found;
};
