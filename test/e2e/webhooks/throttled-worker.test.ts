import { describe, expect, it } from 'vitest';
import { attemptsQueueSettings, DEFAULT_ACCOUNT_CONCURRENCY, MINIMUM_MAX_RECEIVE_COUNT } from '../../../infra/constructs/queue-capacity.ts';
import { LocalExecutions } from '../../../infra/local/stand-ins/local-executions.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';

/**
 * Issue 28, item 2: on a new account's 10 executions, the API and the every-minute jobs can take
 * all of them while notifications pile up on the attempts queue. The worker's mapping is the
 * template's for such an account (infra/constructs/queue-capacity.ts), with the worker's 30 s
 * timeout scaled down to 1.5 s (a 9 s visibility timeout); the stand-in throttles it as Lambda
 * throttles an SQS mapping.
 *
 * The burst is counted in receives, not in seconds (issue 37): it ends once the two batches the
 * mapping took have been received three times, two visibility timeouts after the first receive
 * (12 worker timeouts; the settings before issue 28, a visibility of twice the timeout, 5
 * receives and 20 batches at once, dead-lettered every waiting attempt after 10). An attempt is
 * dead-lettered on its sixth receive, three visibility timeouts (27 s) after the release: that is
 * the time the released worker has to take its batch, against the 1-3 s it needs on a loaded
 * 2-core machine.
 */
const WORKER_TIMEOUT_SECONDS = 1.5;
const executions = new LocalExecutions(DEFAULT_ACCOUNT_CONCURRENCY);
const mapping = attemptsQueueSettings(DEFAULT_ACCOUNT_CONCURRENCY, WORKER_TIMEOUT_SECONDS);
const world = useWebhookWorld({ webhookMapping: { ...mapping, executions } });
const { stack, receiver } = world;

const NOTIFICATIONS = 30;
const BATCH = 10;
const RECEIVES_IN_BURST = 3;

describe('the webhook worker on a 10-execution account', () => {
  it('attempts every notification exactly once after a burst took every execution, and dead-letters none unattempted', async () => {
    expect(mapping).toEqual({ visibilityTimeoutSeconds: 6 * WORKER_TIMEOUT_SECONDS, maxReceiveCount: MINIMUM_MAX_RECEIVE_COUNT, maxConcurrency: 2 });
    expect(RECEIVES_IN_BURST).toBeLessThan(MINIMUM_MAX_RECEIVE_COUNT);
    const { endpoint } = await world.createEndpoint(['distribution.order.created']);
    const { queue } = stack().webhooks;

    // The API functions and the every-minute jobs hold all ten executions. The mapping waits
    // while the thirty are queued, so every receive counts from one moment however long thirty
    // requests take on this machine.
    await queue.stop();
    const burst = executions.takeAll();
    const deliveries: string[] = [];
    for (let i = 0; i < NOTIFICATIONS; i++) {
      deliveries.push((await world.sendTest(endpoint.id)).id);
    }
    await eventually(async () => queue.depth(), (d) => d.visible === NOTIFICATIONS);
    queue.start();
    const received = (counts: number[]) => counts.filter((n) => n > 0);
    const counts = await eventually(
      async () => queue.receiveCounts(),
      (counts) => received(counts).length === 2 * BATCH && received(counts).every((n) => n >= RECEIVES_IN_BURST),
      5 * mapping.visibilityTimeoutSeconds * 1000,
    );

    // Throttled all along: nothing reached the receiver, and the mapping took only its two
    // batches, so the rest of the backlog spent no receive.
    expect(receiver.received).toEqual([]);
    expect(executions.stats().throttles).toBeGreaterThan(0);
    expect(queue.depth().dead).toBe(0);
    expect(counts.filter((n) => n === 0)).toHaveLength(NOTIFICATIONS - 2 * BATCH);
    expect(Math.max(...counts)).toBeLessThan(MINIMUM_MAX_RECEIVE_COUNT);
    burst();

    await receiver.waitFor(NOTIFICATIONS);
    await eventually(async () => queue.depth(), (d) => d.visible + d.inFlight + d.delayed === 0);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(NOTIFICATIONS);
    expect(new Set(ids).size).toBe(NOTIFICATIONS);
    expect(queue.depth().dead).toBe(0);
    for (const id of deliveries) {
      const detail = await world.tenant.call(world.admin, 'GET', `/v1/webhooks/deliveries/${id}`);
      expect(detail.body, id).toMatchObject({ state: 'succeeded', attempts: 1, lastStatus: 204 });
    }
  }, 180_000);
});
