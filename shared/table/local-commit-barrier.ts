import { GetItemCommand, type AttributeValue, type DynamoDBClient, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import type { DeserializeMiddleware, Pluggable } from '@smithy/types';
import { tableDefinition } from './definition.ts';

/** The key of a transaction's first item: the one read back to wait for the commit. */
const firstKey = (items: TransactWriteItem[] | undefined): { TableName: string; Key: Record<string, AttributeValue> } | undefined => {
  const first = items?.[0];
  if (!first) return undefined;
  if (first.Put) {
    const item = first.Put.Item ?? {};
    const key = Object.fromEntries([tableDefinition.partitionKey, tableDefinition.sortKey].filter((k) => item[k]).map((k) => [k, item[k]]));
    return { TableName: first.Put.TableName!, Key: key };
  }
  const target = first.Update ?? first.Delete ?? first.ConditionCheck;
  return target ? { TableName: target.TableName!, Key: target.Key! } : undefined;
};

/**
 * DynamoDB Local answers TransactWriteItems a few milliseconds before the transaction is
 * written to its file: a crash in that window loses a transaction the caller was told had
 * committed, which DynamoDB never does (`test/integration/dynamodb-local-durability.test.ts`).
 * A strongly consistent read of one of its items waits for that write, so the local stack
 * answers only after it. Only against DynamoDB Local keeping a data folder (DYNAMODB_LOCAL_DURABLE,
 * set by the local stack): in memory a crash loses everything anyway, and tests and benches pay
 * nothing. Never in the cloud.
 * The read goes through its own client (`reader`, made in client.ts), outside the recording of
 * the function's AWS calls: it is no call the function makes in the cloud.
 */
export const localCommitBarrier = (reader: DynamoDBClient): Pluggable<any, any> => {
  const barrier: DeserializeMiddleware<any, any> = (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'TransactWriteItemsCommand') {
      const key = firstKey((args.input as { TransactItems?: TransactWriteItem[] }).TransactItems);
      if (key) await reader.send(new GetItemCommand({ ...key, ConsistentRead: true }));
    }
    return result;
  };
  return { applyToStack: (stack) => stack.add(barrier, { step: 'deserialize', name: 'localCommitBarrier' }) };
};
