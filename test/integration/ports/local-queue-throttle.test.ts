import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { LocalExecutions } from '../../../infra/local/stand-ins/local-executions.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import { msg, useLocalQueues, waitFor } from './local-queue-support.ts';

/**
 * The SQS stand-in's throttle (issue 28): a consumer's function runs on the account's executions,
 * and a batch that finds none free is retried as Lambda retries a throttled SQS invocation, until
 * its visibility timeout runs out.
 */
// These throttled runs wait on retries that back off to a second: 10 s, not the stand-ins' usual 5.
const waitLong = (check: () => boolean) => waitFor(check, 120_000);
const { newQueue } = useLocalQueues();

/** What the consumer was handed: each message id with the receive count it came with. */
const recorder = () => {
  const seen: { id: string; receive: number }[] = [];
  const consumer = async (event: SQSEvent) => {
    for (const r of event.Records) seen.push({ id: (JSON.parse(r.body) as DeliveryMessage).deliveryId, receive: Number(r.attributes.ApproximateReceiveCount) });
  };
  return { seen, consumer };
};

describe('LocalQueue on an account’s executions (throttles)', () => {
  it('retries a throttled batch within its receive, and invokes it once an execution is free', async () => {
    const executions = new LocalExecutions(10);
    const { seen, consumer } = recorder();
    const queue = newQueue({ consumer, executions, batchSize: 10, visibilityTimeoutSeconds: 30 });
    const burst = executions.takeAll();
    for (let i = 0; i < 3; i++) await queue.send(msg(i));
    queue.start();
    await waitLong(() => executions.stats().throttles >= 3);
    expect(seen).toEqual([]);
    burst();
    await waitLong(() => seen.length === 3);
    expect(seen.map((s) => s.receive)).toEqual([1, 1, 1]);
    await waitLong(() => queue.depth().inFlight === 0);
    expect(queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
    expect(executions.stats().running).toBe(0);
  });

  it('lets a batch throttled past its visibility timeout show again, counts the next receive, and dead-letters it unattempted past maxReceiveCount', async () => {
    const executions = new LocalExecutions(10);
    const dead: string[] = [];
    const { seen, consumer } = recorder();
    const queue = newQueue({ consumer, executions, visibilityTimeoutSeconds: 0.2, maxReceiveCount: 2, onDeadLetter: (m) => dead.push((m as DeliveryMessage).deliveryId) });
    executions.takeAll();
    await queue.send(msg(1));
    queue.start();
    await waitLong(() => dead.length === 1);
    expect(dead).toEqual(['d1']);
    expect(seen).toEqual([]);
  });

  it('takes no more batches than its maximum concurrency: the ones it leaves keep their receives', async () => {
    const executions = new LocalExecutions(10);
    const { consumer } = recorder();
    const queue = newQueue({ consumer, executions, batchSize: 1, maxConcurrency: 2, visibilityTimeoutSeconds: 30 });
    const burst = executions.takeAll();
    for (let i = 0; i < 5; i++) await queue.send(msg(i));
    queue.start();
    await waitLong(() => executions.stats().throttles >= 4);
    expect(queue.depth()).toEqual({ visible: 3, delayed: 0, inFlight: 2, dead: 0 });
    burst();
    await waitLong(() => queue.depth().inFlight + queue.depth().visible === 0);
  });

  it('runs no more invocations than the account has, whatever the mapping allows', async () => {
    const executions = new LocalExecutions(3);
    let running = 0;
    let most = 0;
    const queue = newQueue({
      executions,
      batchSize: 1,
      maxConcurrency: 20,
      consumer: async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
      },
    });
    for (let i = 0; i < 12; i++) await queue.send(msg(i));
    queue.start();
    await waitLong(() => queue.depth().inFlight + queue.depth().visible === 0);
    expect(most).toBe(3);
    expect(executions.stats().throttles).toBeGreaterThan(0);
  });
});
