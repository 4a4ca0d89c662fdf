import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { MAX_ACTIVE_CONNECTIONS } from '../../../functions/integrations/connection-limit.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { approve, connectSandbox, RUT } from './support.ts';

const stack = useLocalStack();

/** An open authorization with its approved code, ready to complete. */
const approved = async (tenant: TestTenant, admin: TestMember) => {
  const authorization = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode: RUT.a, name: 'Ventas' } });
  expect(authorization.status, authorization.text).toBe(201);
  return { code: await approve(authorization.body.authorizeUrl), bindingSecret: authorization.body.bindingSecret as string };
};
const complete = (tenant: TestTenant, admin: TestMember, body: { code: string; bindingSecret: string }) => tenant.call(admin, 'POST', '/v1/integrations/connections', { body });
const activeConnections = async (tenant: TestTenant, admin: TestMember) =>
  (await tenant.call(admin, 'GET', '/v1/integrations/connections?limit=100')).body.items.filter((c: { state: string }) => c.state === 'active');
const storedCount = async (tenantId: string) => (await table().send(new GetCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenantId), ConsistentRead: true }))).Item?.active;

describe('connections are bounded', () => {
  it('holds at most 20 active connections per tenant under 20 concurrent creates; a revoke frees a place', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    for (let i = 0; i < 15; i++) await connectSandbox(tenant, admin, RUT.a);
    const ready = await Promise.all(Array.from({ length: 20 }, () => approved(tenant, admin)));
    const answers = await Promise.all(ready.map((body) => complete(tenant, admin, body)));
    // The count decides: five places were left, the others hear so. A lost race is run again by
    // the chain; one that lost every run is a 409 the client sends again, as a client would.
    for (const [i, answer] of answers.entries()) if (answer.status === 409) answers[i] = await complete(tenant, admin, ready[i]!);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 422).map((a) => a.body.code)).toEqual(Array(15).fill('connection_limit_reached'));
    expect(await activeConnections(tenant, admin)).toHaveLength(MAX_ACTIVE_CONNECTIONS);
    expect(await storedCount(tenant.id)).toBe(MAX_ACTIVE_CONNECTIONS);

    // A refused completion left its authorization open: after a revoke it completes.
    const refused = ready[statuses.indexOf(422)]!;
    const [first] = await activeConnections(tenant, admin);
    expect((await tenant.call(admin, 'POST', `/v1/integrations/connections/${first.id}/revoke`, { body: { version: first.version } })).status).toBe(200);
    expect((await complete(tenant, admin, refused)).status).toBe(201);
    expect((await complete(tenant, admin, await approved(tenant, admin))).body.code).toBe('connection_limit_reached');
  }, 120_000);

  it('counts connections made before the count existed', async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    for (let i = 0; i < MAX_ACTIVE_CONNECTIONS; i++) await connectSandbox(tenant, admin, RUT.b);
    // As a tenant whose connections were all made by an earlier version: no count item at all.
    await table().send(new DeleteCommand({ TableName: tableName(), Key: keys.activeConnectionCount(tenant.id) }));
    const over = await complete(tenant, admin, await approved(tenant, admin));
    expect(over.status, over.text).toBe(422);
    expect(over.body.code).toBe('connection_limit_reached');
  }, 120_000);
});
