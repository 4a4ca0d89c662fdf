import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StateConflictError } from '../errors.ts';
import { table } from './client.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * One write of a change. `onConditionFailed` turns a failed condition on this item into the
 * error the client should see, given the item as it was (ReturnValuesOnConditionCheckFailure).
 */
export interface Write {
  item: TransactItem;
  onConditionFailed?: (current: Record<string, unknown> | undefined) => Error | Promise<Error>;
}

/**
 * An item changed between the operation's read and its commit in a way the operation decides
 * afresh (a newer position kept meanwhile): the request chain runs the operation again, which
 * reads the new state, instead of answering 409 for a race the client cannot act on.
 */
export class ReadOutdatedError extends StateConflictError {
  constructor() {
    super('The resource changed while the request ran; retry.', 'concurrent_update');
  }
}

/** Thrown when another transaction touched the same items at the same moment. */
export class TransactionConflictError extends StateConflictError {
  constructor(readonly conflictedIndexes: number[]) {
    super('Another request is changing the same resource; retry with the current version.', 'concurrent_update');
  }
}

const withOldValues = (item: TransactItem): TransactItem => {
  const [kind, body] = Object.entries(item)[0] as [keyof TransactItem, Record<string, unknown>];
  if (kind === 'ConditionCheck' || body.ConditionExpression === undefined) return item;
  return { [kind]: { ...body, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } as TransactItem;
};

/**
 * A change of one item needs no transaction: the single-item write is as atomic, costs half
 * the capacity and answers faster. Its failed condition is reported the same way.
 */
const writeOne = async (write: Write): Promise<void> => {
  const { Put, Update, Delete } = write.item;
  const returnOld = { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  try {
    if (Put) await table().send(new PutCommand({ ...Put, ...returnOld }));
    else if (Update) await table().send(new UpdateCommand({ ...Update, ...returnOld }));
    else if (Delete) await table().send(new DeleteCommand({ ...Delete, ...returnOld }));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const current = error.Item ? unmarshall(error.Item) : undefined;
    if (write.onConditionFailed) throw await write.onConditionFailed(current);
    throw new StateConflictError('The resource changed; reload it and try again.');
  }
};

/**
 * Writes every item of a change in one DynamoDB transaction: the resource, its outbox events
 * and its idempotency record commit together or not at all.
 */
export const commit = async (writes: Write[], clientRequestToken?: string): Promise<void> => {
  if (writes.length === 0) return;
  if (writes.length === 1 && !writes[0].item.ConditionCheck) return writeOne(writes[0]);
  try {
    await table().send(
      new TransactWriteCommand({
        TransactItems: writes.map((w) => withOldValues(w.item)),
        ClientRequestToken: clientRequestToken,
      }),
    );
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    const conflicted: number[] = [];
    for (const [index, reason] of reasons.entries()) {
      if (reason.Code === 'ConditionalCheckFailed') {
        const current = reason.Item ? unmarshall(reason.Item) : undefined;
        const handler = writes[index]?.onConditionFailed;
        if (handler) throw await handler(current);
        throw new StateConflictError('The resource changed; reload it and try again.');
      }
      if (reason.Code === 'TransactionConflict') conflicted.push(index);
    }
    if (conflicted.length > 0) throw new TransactionConflictError(conflicted);
    throw error;
  }
};
