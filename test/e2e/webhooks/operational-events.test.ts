import { describe, expect, it } from 'vitest';
import { eventually, type Received } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld({ retryDelay: '0' });
const { receiver, receivedAt: at } = world;

const operational = ['webhook.endpoint.failing', 'webhook.endpoint.disabled'];
const create = async (path: string, eventTypes: string[]) => (await world.createEndpoint(eventTypes, path)).endpoint;
const typeOf = (r: Received) => JSON.parse(r.body).type as string;

describe('operational events (decisions 5)', () => {
  it('warns the company’s other destinations once at 15 dead deliveries and again when the destination disables itself; never the destination itself', async () => {
    receiver.reply = (r) => ({ status: r.path.startsWith('/hooks/failing') ? 500 : 204 });
    // The failing destination subscribes to the operational kinds too: it must not hear of itself.
    const failing = await create('failing?token=s3cr3t', ['distribution.order.created', ...operational]);
    await create('watcher', operational);
    await create('orders-only', ['distribution.order.created']);
    const sleeping = await create('sleeping', operational);
    expect((await world.tenant.call(world.admin, 'PATCH', `/v1/webhooks/endpoints/${sleeping.id}`, { body: { version: 1, active: false } })).status).toBe(200);

    // Twenty deliveries dying side by side: the count passes 15 in racing records.
    await Promise.all(Array.from({ length: 20 }, world.emitOrderCreated));
    await world.readUntil(`/v1/webhooks/endpoints/${failing.id}`, (r) => r.body.state === 'disabled');
    const notices = await eventually(async () => at('watcher'), (list) => list.length >= 2, 120_000);
    // Whatever else arrives would come by now: the outbox of the disabling committed with it.
    await world.readUntil('/v1/webhooks/deliveries?state=pending', (r) => r.body.items.length === 0);

    expect(notices.map(typeOf)).toEqual(['webhook.endpoint.failing', 'webhook.endpoint.disabled']);
    const [warning, disabled] = notices.map((r) => JSON.parse(r.body));
    const redacted = `${receiver.url}/failing?token=REDACTED`;
    expect(warning).toMatchObject({ tenantId: world.tenant.id, data: { endpointId: failing.id, url: redacted, consecutiveFailures: 15, disabledReason: null } });
    expect(disabled).toMatchObject({ tenantId: world.tenant.id, data: { endpointId: failing.id, url: redacted, consecutiveFailures: 20, disabledReason: 'failures' } });
    expect(JSON.stringify(notices.map((n) => n.body))).not.toContain('s3cr3t');

    expect(at('failing').map(typeOf).filter((t) => operational.includes(t))).toEqual([]);
    expect(at('failing')).toHaveLength(20 * 8);
    expect(at('orders-only').map(typeOf).every((t) => t === 'distribution.order.created')).toBe(true);
    expect(at('sleeping')).toEqual([]);
  }, 240_000);
});
