import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { table } from './client.ts';

/**
 * Every item a Query matches, page after page (each page at most 1 MB, or `Limit` items), for
 * the few reads that need them all: a tenant's destinations, a destination's pending deliveries,
 * an hour of outbox events.
 */
export async function* queryAll(input: Omit<QueryCommandInput, 'ExclusiveStartKey'>): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table().send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield* Items;
    startKey = LastEvaluatedKey;
  } while (startKey);
}
