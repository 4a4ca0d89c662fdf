import { describe, expect, it } from 'vitest';
import { attemptsQueueSettings, DEFAULT_ACCOUNT_CONCURRENCY, MINIMUM_MAX_RECEIVE_COUNT } from '../../../infra/constructs/queue-capacity.ts';
import { LocalExecutions } from '../../../infra/local/stand-ins/local-executions.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

/**
 * Issue 28, item 2: on a new account's 10 executions, the API and the every-minute jobs can take
 * all of them while notifications pile up on the attempts queue. The worker's mapping is the
 * template's for such an account (infra/constructs/queue-capacity.ts), with the worker's 30 s
 * timeout scaled to half a second so that the test waits seconds instead of minutes; the
 * stand-in throttles it as Lambda throttles an SQS mapping.
 */
const WORKER_TIMEOUT_SECONDS = 0.5;
const executions = new LocalExecutions(DEFAULT_ACCOUNT_CONCURRENCY);
const mapping = attemptsQueueSettings(DEFAULT_ACCOUNT_CONCURRENCY, WORKER_TIMEOUT_SECONDS);
const world = useWebhookWorld({ webhookMapping: { ...mapping, executions } });
const { stack, receiver } = world;

const NOTIFICATIONS = 30;
/**
 * How long every execution stays taken: 16 worker timeouts. The settings before issue 28 (a
 * visibility of twice the timeout, 5 receives, 20 batches at once) dead-lettered every waiting
 * attempt after 10; the template's (six times, 5 receives, 2 batches) only after 30.
 */
const BURST_MS = 16 * WORKER_TIMEOUT_SECONDS * 1000;

describe('the webhook worker on a 10-execution account', () => {
  it('attempts every notification exactly once after a burst took every execution, and dead-letters none unattempted', async () => {
    expect(mapping).toEqual({ visibilityTimeoutSeconds: 6 * WORKER_TIMEOUT_SECONDS, maxReceiveCount: MINIMUM_MAX_RECEIVE_COUNT, maxConcurrency: 2 });
    const { endpoint } = await world.createEndpoint(['distribution.order.created']);
    const { queue } = stack().webhooks;

    // The API functions and the every-minute jobs hold all ten executions.
    const burst = executions.takeAll();
    const deliveries: string[] = [];
    for (let i = 0; i < NOTIFICATIONS; i++) {
      deliveries.push((await world.sendTest(endpoint.id)).id);
    }
    await eventually(async () => queue.depth(), (d) => d.visible + d.inFlight === NOTIFICATIONS);
    await new Promise((resolve) => setTimeout(resolve, BURST_MS));

    // Throttled all along: nothing reached the receiver, and the mapping took only its two
    // batches, so the rest of the backlog spent no receive.
    expect(receiver.received).toEqual([]);
    expect(executions.stats().throttles).toBeGreaterThan(0);
    const during = queue.depth();
    expect(during.dead).toBe(0);
    expect(during.visible).toBeGreaterThanOrEqual(NOTIFICATIONS - 2 * 10);
    burst();

    await receiver.waitFor(NOTIFICATIONS, 60_000);
    await eventually(async () => queue.depth(), (d) => d.visible + d.inFlight + d.delayed === 0, 60_000);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(NOTIFICATIONS);
    expect(new Set(ids).size).toBe(NOTIFICATIONS);
    expect(queue.depth().dead).toBe(0);
    for (const id of deliveries) {
      const detail = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${id}`);
      expect(detail.body, id).toMatchObject({ state: 'succeeded', attempts: 1, lastStatus: 204 });
    }
  }, 120_000);
});
