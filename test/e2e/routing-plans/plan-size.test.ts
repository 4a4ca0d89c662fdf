import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DYNAMODB_ITEM_LIMIT, itemBytes } from '../../../functions/routing/plan-size.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack();

/** A plan-shaped item (routes of order ids) padded to exactly `bytes` as plan-size.ts counts them. */
const planItemOf = (bytes: number) => {
  const item: Record<string, unknown> = {
    pk: `T#${randomUUID()}`,
    sk: `PLAN#${randomUUID()}`,
    routes: Array.from({ length: 80 }, (_, r) => ({ vehicleRouteId: `V${r + 1}`, orderIds: Array.from({ length: 120 }, () => randomUUID()) })),
    pad: '',
  };
  item.pad = 'x'.repeat(bytes - itemBytes(item));
  expect(itemBytes(item)).toBe(bytes);
  return item;
};

const put = (item: Record<string, unknown>) => runAs(OPERATOR, () => table().send(new PutCommand({ TableName: tableName(), Item: item })));

describe('a plan’s size counted as DynamoDB counts it (decisions 18: never a 500 for a plan too large)', () => {
  it('matches DynamoDB for names, strings, lists and maps: 400 KB by this count is stored, one byte more is refused', async () => {
    stack();
    await expect(put(planItemOf(DYNAMODB_ITEM_LIMIT))).resolves.toBeDefined();
    await expect(put(planItemOf(DYNAMODB_ITEM_LIMIT + 1))).rejects.toThrow(/size/i);
  });
});
