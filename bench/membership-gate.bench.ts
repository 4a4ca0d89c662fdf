import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../infra/local/create-table.ts';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { epochSeconds } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { keys } from '../shared/table/keys.ts';
import { resetTableClient, table, tableName } from '../shared/table/client.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { compare, fmt, percentile } from './support/stats.ts';

/**
 * `npx tsx bench/membership-gate.bench.ts`: what counting the tenant's rate only after the
 * membership read costs (issue 7), against the two calls side by side as they were before:
 * the same two DynamoDB calls, in alternating blocks, against one DynamoDB Local.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BLOCK = 20;

const dynamo = await startDynamoDbLocal();
const name = `bench-${randomUUID()}`;
await ensureTable(dynamo.endpoint, name);
Object.assign(process.env, { TABLE_NAME: name, DYNAMODB_ENDPOINT: dynamo.endpoint });
resetTableClient();
const tenantId = newId();
await putMember({ tenantId, subject: 'bench-admin', role: 'admin', firstName: 'Bea' });

const member = () => table().send(new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, 'bench-admin'), ConsistentRead: true }));
const rate = () =>
  table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(tenantId, Math.floor(Date.now() / 60_000)),
      UpdateExpression: 'ADD hits :one SET expiresAt = if_not_exists(expiresAt, :e)',
      ExpressionAttributeValues: { ':one': 1, ':e': epochSeconds() + 120 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
const sequential = async () => {
  await member();
  await rate();
};
const sideBySide = () => Promise.all([member(), rate()]);

await compare(2, 10, sequential, sideBySide);
const r = await compare(ROUNDS, BLOCK, sequential, sideBySide);
const [s50, p50, s99, p99] = [percentile(r.path, 50), percentile(r.floor, 50), percentile(r.path, 99), percentile(r.floor, 99)];
console.log(`\nMembership read and tenant rate counter (DynamoDB Local, ${ROUNDS * BLOCK} each)\n`);
console.log('| gate | p50 ms | p99 ms |');
console.log('|---|---|---|');
console.log(`| sequential (member, then counter) | ${fmt(s50)} | ${fmt(s99)} |`);
console.log(`| side by side (before issue 7) | ${fmt(p50)} | ${fmt(p99)} |`);
console.log(`| ratio | ${(s50 / p50).toFixed(2)} | ${(s99 / p99).toFixed(2)} |`);

resetTableClient();
await dynamo.stop();
