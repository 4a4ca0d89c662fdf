import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { memberRead, rateCount } from '../support/gate-calls.ts';
import type { LoadTenant } from './seed.ts';

/**
 * The floor of the mix: per request of the cycle, the table calls our path makes (read from the
 * IAM check's recording of one cycle), made directly with the document client. Reads read the
 * seeded items; writes put fresh items of about the same size (entity `load-floor`, which no
 * stream consumer acts on) in transactions of the same number of items.
 */
const get = (Key: Record<string, string>) => table().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
const query = (pk: string) => table().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }));
const memberById = (id: string) =>
  table().send(new QueryCommand({ TableName: tableName(), IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': keys.memberById(id).gsi1pk } }));
const batchGet = (Keys: Record<string, string>[]) => table().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys, ConsistentRead: true } } }));
const filler = 'x'.repeat(400);
const transact = (t: LoadTenant, items: number) =>
  table().send(
    new TransactWriteCommand({
      TransactItems: Array.from({ length: items }, () => ({
        Put: { TableName: tableName(), Item: { pk: tenantPk(t.id), sk: `FLOOR#${randomUUID()}`, entity: 'load-floor', filler }, ConditionExpression: 'attribute_not_exists(pk)' },
      })),
    }),
  );

const gate = async (t: LoadTenant, subject: string) => {
  await memberRead(t.id, subject);
  await rateCount(t.id);
};
const idem = (t: LoadTenant, op: string) => get(keys.idempotency(t.id, op, randomUUID()));
const order = (t: LoadTenant) => get(opsKeys.order(t.id, t.orderId));
const route = (t: LoadTenant) => get(opsKeys.route(t.id, t.routeId));
const stops = (t: LoadTenant) => query(opsKeys.position(t.id, t.routeId).pk);
const view = (t: LoadTenant) => get(opsKeys.trackingView(t.trackingToken));

/** One function per request of the mix, in its order (bench/load/mix.ts). */
export const floorSteps = (t: LoadTenant): (() => Promise<unknown>)[] => {
  const { subjects } = t;
  const op = () => gate(t, subjects.operator);
  const dr = () => gate(t, subjects.driver);
  return [
    async () => (await op(), order(t)),
    // The tenant read: an order without serviceMinutes takes the tenant's trackingStopMinutes (decisions 15).
    async () => (await op(), await idem(t, 'createOrder'), await get(keys.tenant(t.id)), transact(t, 4)),
    async () => (await op(), idem(t, 'createOrder')),
    async () => (await op(), await idem(t, 'createRoutePlan'), await batchGet([opsKeys.order(t.id, t.orderId)]), transact(t, 3)),
    async () => (await op(), await get(opsKeys.plan(t.id, randomUUID())), transact(t, 3)),
    async () => {
      await op();
      await idem(t, 'assignRoute');
      await get(opsKeys.plan(t.id, randomUUID()));
      await get(opsKeys.planRouteClaim(t.id, randomUUID(), 'V1'));
      await memberById(t.driverId);
      await batchGet([opsKeys.order(t.id, t.orderId)]);
      await get(keys.plate(t.id, t.plate));
      return transact(t, 7);
    },
    async () => (await op(), await route(t), stops(t)),
    async () => (await dr(), await route(t), await stops(t), transact(t, 3)),
    async () => (await dr(), await route(t), await get(opsKeys.position(t.id, t.routeId)), transact(t, 3)),
    // Deliver takes an idempotency key (issue 29): its replay look-up, and its record in the commit.
    async () => (await dr(), await idem(t, 'deliverStop'), await route(t), await get(opsKeys.stop(t.id, t.routeId, randomUUID())), await order(t), transact(t, 6)),
    () => view(t),
    () => view(t),
  ];
};
