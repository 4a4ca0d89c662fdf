import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTO_DISABLE_AUDIT_ACTION, disableIfFailing } from '../../../functions/webhooks/worker/auto-disable.ts';
import { SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_SWEEP_SECONDS: '86400' } });
let tenant: TestTenant;
let admin: TestMember;

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
});

const entriesOf = async (resourceId: string) => {
  const response = await tenant.call(admin, 'GET', `/v1/audit?resourceId=${resourceId}`);
  expect(response.status, response.text).toBe(200);
  return response.body.items as Record<string, string>[];
};

describe('a destination that disables itself', () => {
  it('writes one entry with the system actor in the same commit, and none when it was not due', async () => {
    const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['distribution.order.created'] } });
    expect(created.status, created.text).toBe(201);
    const endpointId = created.body.endpoint.id;

    // Not failing yet: nothing changes, nothing is logged.
    expect(await disableIfFailing({ tenantId: tenant.id, id: endpointId, url: 'http://127.0.0.1:9/hooks' }, new Date())).toBe(false);
    expect((await entriesOf(endpointId)).map((e) => e.action)).toEqual(['createWebhookEndpoint']);

    // As after 20 dead deliveries in a row.
    await table().send(new UpdateCommand({ TableName: tableName(), Key: keys.webhookEndpoint(tenant.id, endpointId), UpdateExpression: 'SET consecutiveFailures = :n', ExpressionAttributeValues: { ':n': 20 } }));
    const runId = newId();
    expect(await disableIfFailing({ tenantId: tenant.id, id: endpointId, url: 'http://127.0.0.1:9/hooks' }, new Date(), { runId })).toBe(true);
    expect(await disableIfFailing({ tenantId: tenant.id, id: endpointId, url: 'http://127.0.0.1:9/hooks' }, new Date())).toBe(false);

    const [latest, ...older] = await entriesOf(endpointId);
    expect(older.map((e) => e.action)).toEqual(['createWebhookEndpoint']);
    expect(latest).toMatchObject({ action: AUTO_DISABLE_AUDIT_ACTION, actorId: SYSTEM_ACTOR_ID, resourceId: endpointId, requestId: runId, outcome: 'succeeded' });
    expect((await tenant.call(admin, 'GET', `/v1/webhooks/endpoints/${endpointId}`)).body).toMatchObject({ state: 'disabled', disabledReason: 'failures', version: 2 });
  });
});
