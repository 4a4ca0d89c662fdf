import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { eventually, Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1,1' } });
const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());

const verifyWithBoth = (secret: string, body: string, headers: Record<string, string>) => {
  expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  expect(new SvixWebhook(secret).verify(body, { 'svix-id': headers['webhook-id'], 'svix-timestamp': headers['webhook-timestamp'], 'svix-signature': headers['webhook-signature'] })).toEqual(JSON.parse(body));
};

describe('a test notification end to end', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin', { mfa: true });
  });

  it('reaches a loopback receiver signed, in the envelope of the specification, and is logged', async () => {
    const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: receiver.url, eventTypes: ['distribution.order.created'], description: 'ERP' } });
    expect(created.status, created.text).toBe(201);
    const { endpoint, secret } = created.body;
    expect(secret.value).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ url: receiver.url, state: 'active', disabledReason: null, consecutiveFailures: 0, version: 1, secrets: [] });

    const askedAt = Math.floor(Date.now() / 1000);
    const test = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/test`);
    expect(test.status, test.text).toBe(202);
    expect(test.body).toMatchObject({ endpointId: endpoint.id, eventType: 'webhook.test', state: 'pending', mode: 'auto', attempts: 0, maxAttempts: 8, manualRetries: 0, lastOutcome: null, lastStatus: null });

    const [request] = await receiver.waitFor(1);
    const receivedAt = Math.ceil(Date.now() / 1000);
    const headers = request.headers as Record<string, string>;
    verifyWithBoth(secret.value, request.body, headers);
    const envelope = JSON.parse(request.body);
    expect(envelope).toEqual({
      id: test.body.eventId,
      type: 'webhook.test',
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      tenantId: tenant.id,
      version: 1,
      data: { endpointId: endpoint.id, message: expect.any(String) },
    });
    expect(headers['webhook-id']).toBe(envelope.id);
    // Signed at the attempt: between the request and its arrival, however long that took.
    expect(Number(headers['webhook-timestamp'])).toBeGreaterThanOrEqual(askedAt);
    expect(Number(headers['webhook-timestamp'])).toBeLessThanOrEqual(receivedAt);

    const detail = await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${test.body.id}`), (r) => r.body.state === 'succeeded');
    expect(detail.body).toMatchObject({ attempts: 1, lastStatus: 204, lastOutcome: 'success', nextAttemptAt: null, deadAt: null });
    expect(detail.body.event).toEqual({ id: envelope.id, type: 'webhook.test', occurredAt: envelope.timestamp, data: envelope.data });
    expect(detail.body.attemptLog).toEqual([
      { attemptNo: 1, trigger: 'auto', startedAt: expect.any(String), durationMs: expect.any(Number), outcome: 'success', statusCode: 204, retryAfterSeconds: null, responseExcerpt: null },
    ]);
  });

  it('lets a destination subscribe to webhook.test, which still goes only to the destination tested', async () => {
    const other = new Receiver();
    await other.start();
    try {
      const listed = (await tenant.call(admin, 'GET', '/v1/webhooks/event-types')).body.items.map((i: { type: string }) => i.type);
      expect(listed).toContain('webhook.test');
      const subscriber = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: other.url, eventTypes: ['webhook.test', 'routing.plan.approved'] } });
      expect(subscriber.status, subscriber.text).toBe(201);
      expect(subscriber.body.endpoint.eventTypes).toEqual(['webhook.test', 'routing.plan.approved']);
      const tested = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: `${receiver.url}/tested`, eventTypes: ['distribution.order.created'] } });
      expect(tested.status, tested.text).toBe(201);
      const before = receiver.received.length;

      const test = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${tested.body.endpoint.id}/test`);
      expect(test.status, test.text).toBe(202);
      await receiver.waitFor(before + 1);
      await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${test.body.id}`), (r) => r.body.state === 'succeeded');
      // The subscriber's own test reaches it: its subscription neither blocks nor doubles it.
      const own = await tenant.call(admin, 'POST', `/v1/webhooks/endpoints/${subscriber.body.endpoint.id}/test`);
      expect(own.status, own.text).toBe(202);
      const [only] = await other.waitFor(1);
      expect(JSON.parse(only.body).data.endpointId).toBe(subscriber.body.endpoint.id);
      await eventually(() => tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${own.body.id}`), (r) => r.body.state === 'succeeded');
      expect(other.received).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });
});
