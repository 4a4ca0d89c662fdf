import type { InitializeMiddleware, Pluggable } from '@smithy/types';
import { tableDefinition } from '../table/definition.ts';
import { recordCall, recording, settingHolding, type AwsCall } from './recorder.ts';

type Input = Record<string, any>;

/** The partition key's value of an item or key, marshalled ({ S: 'x' }) or not. */
const partitionValue = (item: Input | undefined, attribute: string): string | undefined => {
  const value = item?.[attribute];
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof value.S === 'string') return value.S;
  return undefined;
};

const tableResource = (tableName: string, index?: string): AwsCall['resource'] => {
  const setting = settingHolding(tableName, ['TABLE_NAME']);
  return { kind: 'dynamodb-table', ...(setting ? { setting } : { name: tableName }), ...(index ? { index } : {}) };
};

const call = (action: string, tableName: string, leadingKeys: (string | undefined)[], index?: string): AwsCall => {
  const keys = [...new Set(leadingKeys.filter((k): k is string => k !== undefined))];
  return { action: `dynamodb:${action}`, resource: tableResource(tableName, index), context: keys.length > 0 ? { 'dynamodb:LeadingKeys': keys } : {} };
};

const PK = tableDefinition.partitionKey;

/** The partition key value a Query's key condition names (`<partition key> = :value`). */
const queriedPartition = (input: Input): string | undefined => {
  const index = tableDefinition.globalIndexes.find((i) => i.indexName === input.IndexName);
  const attribute = index?.partitionKey ?? PK;
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  for (const [, name, placeholder] of String(input.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    if ((names[name] ?? name) === attribute) return partitionValue({ v: input.ExpressionAttributeValues?.[placeholder] }, 'v');
  }
  return undefined;
};

/** What IAM authorises for one request: transactions are authorised per item, as the actions of their parts. */
export const callsOf = (commandName: string, input: Input): AwsCall[] => {
  const operation = commandName.replace(/Command$/, '');
  switch (operation) {
    case 'Get':
    case 'GetItem':
      return [call('GetItem', input.TableName, [partitionValue(input.Key, PK)])];
    case 'Put':
    case 'PutItem':
      return [call('PutItem', input.TableName, [partitionValue(input.Item, PK)])];
    case 'Update':
    case 'UpdateItem':
      return [call('UpdateItem', input.TableName, [partitionValue(input.Key, PK)])];
    case 'Delete':
    case 'DeleteItem':
      return [call('DeleteItem', input.TableName, [partitionValue(input.Key, PK)])];
    case 'Query':
      return [call('Query', input.TableName, [queriedPartition(input)], input.IndexName)];
    case 'Scan':
      return [call('Scan', input.TableName, [], input.IndexName)];
    case 'BatchGet':
    case 'BatchGetItem':
      return Object.entries(input.RequestItems ?? {}).map(([name, request]: [string, any]) =>
        call('BatchGetItem', name, (request.Keys ?? []).map((key: Input) => partitionValue(key, PK))),
      );
    case 'BatchWrite':
    case 'BatchWriteItem':
      return Object.entries(input.RequestItems ?? {}).map(([name, requests]: [string, any]) =>
        call('BatchWriteItem', name, (requests ?? []).map((r: Input) => partitionValue(r.PutRequest?.Item ?? r.DeleteRequest?.Key, PK))),
      );
    case 'TransactWrite':
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).map((item: Input) => {
        if (item.Put) return call('PutItem', item.Put.TableName, [partitionValue(item.Put.Item, PK)]);
        if (item.Update) return call('UpdateItem', item.Update.TableName, [partitionValue(item.Update.Key, PK)]);
        if (item.Delete) return call('DeleteItem', item.Delete.TableName, [partitionValue(item.Delete.Key, PK)]);
        return call('ConditionCheckItem', item.ConditionCheck.TableName, [partitionValue(item.ConditionCheck.Key, PK)]);
      });
    case 'TransactGet':
    case 'TransactGetItems':
      return (input.TransactItems ?? []).map((item: Input) => call('GetItem', item.Get.TableName, [partitionValue(item.Get.Key, PK)]));
    default:
      return [call(operation, input.TableName ?? '*', [])];
  }
};

/**
 * Records every request a DynamoDB client sends (initialize step: once per request, not per
 * SDK retry), for the IAM check of the test run. Does nothing unless recording is on.
 */
const recordMiddleware: InitializeMiddleware<Input, object> = (next, context) => async (args) => {
  if (recording()) for (const c of callsOf((context as { commandName?: string }).commandName ?? 'Unknown', args.input)) recordCall(c);
  return next(args);
};

export const recordDynamoDbCalls: Pluggable<any, any> = {
  applyToStack: (stack) => stack.add(recordMiddleware as never, { step: 'initialize', name: 'recordAwsCalls', priority: 'high' }),
};
