import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_SECONDS, epochSeconds } from '../../shared/clock.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { QuestionKind } from './classifier/index.ts';
import type { PopularList } from './schemas.ts';

export const POPULAR_SIZE = 6;
export const POPULAR_WINDOW_DAYS = 30;

/** What a new tenant sees first: the questions dispatchers ask most on their first days. */
export const defaultPopular: readonly QuestionKind[] = ['where', 'today', 'fuel', 'speed', 'care', 'stops', 'week', 'month', 'idle', 'outside'];

const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** One atomic counter per tenant, UTC day and kind: no read before the write, no lost counts. */
export const recordAsked = (tenantId: string, question: QuestionKind, now: Date): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: keys.askedCounter(tenantId, utcDay(now), question),
      UpdateExpression: 'ADD asked :one SET entity = :entity, question = :question, expiresAt = if_not_exists(expiresAt, :expires)',
      ExpressionAttributeValues: {
        ':one': 1,
        ':entity': 'asked',
        ':question': question,
        ':expires': epochSeconds(now) + (POPULAR_WINDOW_DAYS + 1) * DAY_SECONDS,
      },
    },
  },
});

export const popularQuestions = async (tenantId: string, now: Date): Promise<PopularList> => {
  const since = utcDay(new Date(now.getTime() - (POPULAR_WINDOW_DAYS - 1) * DAY_SECONDS * 1000));
  const counts = new Map<QuestionKind, number>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const { Items = [], LastEvaluatedKey } = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        ExpressionAttributeValues: { ':pk': keys.askedPartition(tenantId), ':since': since },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of Items) counts.set(item.question, (counts.get(item.question) ?? 0) + (item.asked as number));
    startKey = LastEvaluatedKey;
  } while (startKey);
  const rank = (q: QuestionKind) => defaultPopular.indexOf(q);
  const tenantTop = [...counts.entries()]
    .sort(([qa, a], [qb, b]) => b - a || rank(qa) - rank(qb))
    .slice(0, POPULAR_SIZE)
    .map(([question]) => ({ question, source: 'tenant' as const }));
  const topUp = defaultPopular
    .filter((q) => !counts.has(q))
    .slice(0, POPULAR_SIZE - tenantTop.length)
    .map((question) => ({ question, source: 'default' as const }));
  return { items: [...tenantTop, ...topUp] };
};
