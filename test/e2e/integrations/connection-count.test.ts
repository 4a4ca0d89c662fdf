import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { claimConnectionSlot } from '../../../functions/integrations/connection-limit.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { connectSandbox, RUT } from './support.ts';

const stack = useLocalStack();

const activeConnections = async (tenant: TestTenant, admin: TestMember) =>
  (await tenant.call(admin, 'GET', '/v1/integrations/connections?limit=100')).body.items.filter((c: { state: string }) => c.state === 'active') as Array<{ id: string; version: number }>;
const storedCount = async (tenantId: string) => (await table().send(new GetCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenantId), ConsistentRead: true }))).Item?.active;
const revoke = (tenant: TestTenant, admin: TestMember, connection: { id: string; version: number }) =>
  tenant.call(admin, 'POST', `/v1/integrations/connections/${connection.id}/revoke`, { body: { version: connection.version } });

describe('the active-connection count does not drift (issue 29)', () => {
  it('a revoke that commits while a completion counts the connections one by one is not counted as active', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    for (let i = 0; i < 3; i++) await connectSandbox(tenant, admin, RUT.a);
    // A tenant whose connections were made before the count existed: the next completion counts them.
    await table().send(new DeleteCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenant.id) }));

    // The completion has counted three active connections; one of them is revoked before it commits.
    const claim = await claimConnectionSlot(tenant.id);
    const [first] = await activeConnections(tenant, admin);
    expect((await revoke(tenant, admin, first!)).status).toBe(200);
    // Its commit no longer holds: the request chain runs the completion again (409 concurrent_update if it kept losing).
    await expect(commit([claim])).rejects.toMatchObject({ code: 'concurrent_update' });
    expect(await storedCount(tenant.id)).toBeUndefined();
    await commit([await claimConnectionSlot(tenant.id)]);
    // Two active connections and the one being completed.
    expect(await activeConnections(tenant, admin)).toHaveLength(2);
    expect(await storedCount(tenant.id)).toBe(3);
  }, 240_000);

  it('a revoke never takes the count below 0', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    await connectSandbox(tenant, admin, RUT.b);
    // A count that drifted low before this fix (a revoke of the race above, counted twice).
    await table().send(new PutCommand({ TableName: tableName(), Item: { ...keys.activeConnectionCount(tenant.id), entity: 'activeConnectionCount', active: 0 } }));
    const [only] = await activeConnections(tenant, admin);
    expect((await revoke(tenant, admin, only!)).status).toBe(200);
    expect(await storedCount(tenant.id)).toBe(0);
    // And a count at 0 still counts up from there.
    await connectSandbox(tenant, admin, RUT.b);
    expect(await storedCount(tenant.id)).toBe(1);
  }, 240_000);
});
