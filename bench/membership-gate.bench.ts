import { randomUUID } from 'node:crypto';
import { ensureTable } from '../infra/local/create-table.ts';
import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';
import { newId } from '../shared/ids.ts';
import { resetTableClient } from '../shared/table/client.ts';
import { putMember } from '../shared/tenancy/members.ts';
import { memberRead, rateCount } from './support/gate-calls.ts';
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

const sequential = async () => {
  await memberRead(tenantId, 'bench-admin');
  await rateCount(tenantId);
};
const sideBySide = () => Promise.all([memberRead(tenantId, 'bench-admin'), rateCount(tenantId)]);

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
