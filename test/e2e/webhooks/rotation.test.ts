import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import type { Received } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

const world = useWebhookWorld();
const { receiver } = world;

const accepts = (secret: string, request: Received): [boolean, boolean] => {
  const h = request.headers as Record<string, string>;
  const standard = (() => {
    try {
      new StandardWebhook(secret).verify(request.body, h);
      return true;
    } catch {
      return false;
    }
  })();
  const svix = (() => {
    try {
      new SvixWebhook(secret).verify(request.body, { 'svix-id': h['webhook-id'], 'svix-timestamp': h['webhook-timestamp'], 'svix-signature': h['webhook-signature'] });
      return true;
    } catch {
      return false;
    }
  })();
  return [standard, svix];
};

const sendTest = async (endpointId: string): Promise<Received> => {
  const count = receiver.received.length;
  await world.sendTest(endpointId);
  return (await receiver.waitFor(count + 1))[count];
};

describe('secret rotation', () => {
  it('signs with both secrets during the grace, new first, and with the new one only after it', async () => {
    const { endpoint, secret: first } = await world.createEndpoint(['field.route.started']);
    const before = await sendTest(endpoint.id);
    expect((before.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);

    const rotated = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, { body: { version: 1, graceSeconds: 3600 } })).body;
    const during = await sendTest(endpoint.id);
    const entries = (during.headers['webhook-signature'] as string).split(' ');
    expect(entries).toHaveLength(2);
    expect(entries.every((e) => e.startsWith('v1,'))).toBe(true);
    expect(accepts(rotated.secret.value, during)).toEqual([true, true]);
    expect(accepts(first.value, during)).toEqual([true, true]);
    // New first: the first entry alone verifies with the new secret.
    expect(accepts(rotated.secret.value, { ...during, headers: { ...during.headers, 'webhook-signature': entries[0] } })).toEqual([true, true]);

    const third = (await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secrets`, { body: { version: 2, graceSeconds: 1 } })).body;
    expect(third.endpoint.secrets.map((s: { id: string }) => s.id)).toEqual([rotated.secret.id]);
    await new Promise((r) => setTimeout(r, 1_200));
    const after = await sendTest(endpoint.id);
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(accepts(third.secret.value, after)).toEqual([true, true]);
    expect(accepts(rotated.secret.value, after)).toEqual([false, false]);
    expect(accepts(first.value, after)).toEqual([false, false]);
    expect((await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpoint.id}`)).body.secrets).toEqual([]);
  });
});
