import { describe, expect, it } from 'vitest';
import { tableName } from '../../../shared/table/client.ts';
import { tenantPk } from '../../../shared/table/keys.ts';
import { queryAll } from '../../../shared/table/query-all.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld({ retryDelay: '0' });
const { receiver, emitOrderCreated } = world;

const activeSlots = async () => {
  const items: Record<string, unknown>[] = [];
  for await (const item of queryAll({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': tenantPk(world.tenant.id) } })) items.push(item);
  return { active: items.find((i) => i.sk === 'WHACTIVE')?.active, urlHeld: items.some((i) => String(i.sk).startsWith('WHURL#')) };
};

describe('a destination that keeps failing', () => {
  it('disables itself after 20 dead deliveries in a row, gets nothing more, and comes back by PATCH', async () => {
    receiver.reply = () => ({ status: 500 });
    const { endpoint } = await world.createEndpoint(['distribution.order.created']);
    for (let i = 0; i < 20; i++) await emitOrderCreated();
    const disabled = await world.readUntil(`/v1/webhooks/endpoints/${endpoint.id}`, (r) => r.body.state === 'disabled', 120_000);
    expect(disabled.body).toMatchObject({ disabledReason: 'failures', consecutiveFailures: 20, version: 2 });
    // Disabling gave back its active slot: the tenant's count is 0 and the URL is free.
    expect(await activeSlots()).toEqual({ active: 0, urlHeld: false });
    const dead = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}/deliveries?state=dead&limit=100`);
    expect(dead.body.items).toHaveLength(20);
    expect(dead.body.items.every((d: { attempts: number }) => d.attempts === 8)).toBe(true);

    const seen = receiver.received.length;
    const ignored = await emitOrderCreated();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.received.length).toBe(seen);
    const none = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries?endpointId=${endpoint.id}&limit=100`);
    expect(none.body.items.some((d: { eventId: string }) => d.eventId === ignored.id)).toBe(false);

    receiver.reply = () => ({ status: 200 });
    const reactivated = await world.tenant.call(world.admin, 'PATCH', `/v1/webhooks/endpoints/${endpoint.id}`, { body: { version: 2, active: true } });
    expect(reactivated.body).toMatchObject({ state: 'active', disabledReason: null, consecutiveFailures: 0, version: 3 });
    expect(await activeSlots()).toEqual({ active: 1, urlHeld: true });
    const next = await emitOrderCreated();
    await eventually(async () => receiver.received.filter((r) => r.headers['webhook-id'] === next.id).length, (n) => n === 1);
  }, 240_000);
});
