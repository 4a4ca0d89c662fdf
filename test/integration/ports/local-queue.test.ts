import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalQueue, type LocalQueueOptions } from '../../../infra/local/stand-ins/local-queue.ts';
import { LocalScheduler } from '../../../infra/local/stand-ins/local-scheduler.ts';
import type { DeliveryMessage, QueuePort } from '../../../shared/ports/queue.ts';

const waitFor = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const msg = (i: number): DeliveryMessage => ({ tenantId: 't1', deliveryId: `d${i}` });
const idOf = (r: SQSRecord) => (JSON.parse(r.body) as DeliveryMessage).deliveryId;

const queues: LocalQueue[] = [];
const newQueue = (options: Partial<LocalQueueOptions> & Pick<LocalQueueOptions, 'consumer'>) => {
  const queue = new LocalQueue({ pollMs: 5, onError: () => {}, ...options });
  queues.push(queue);
  return queue;
};
afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.stop()));
});

describe('LocalQueue (SQS + Lambda event source mapping)', () => {
  it('hands over SQS-shaped records, a delayed message only after its delay', async () => {
    const seen: { record: SQSRecord; at: number }[] = [];
    const queue = newQueue({ consumer: async (e) => void seen.push(...e.Records.map((record) => ({ record, at: Date.now() }))) });
    queue.start();
    const sentAt = Date.now();
    await queue.send(msg(1), 1);
    await queue.send(msg(2));
    await waitFor(() => seen.length === 1);
    expect(idOf(seen[0].record)).toBe('d2');
    expect(queue.depth()).toEqual({ visible: 0, delayed: 1, inFlight: 0, dead: 0 });
    await waitFor(() => seen.length === 2);
    expect(idOf(seen[1].record)).toBe('d1');
    expect(seen[1].at - sentAt).toBeGreaterThanOrEqual(1_000);
    const r = seen[1].record;
    expect(r).toMatchObject({
      body: JSON.stringify(msg(1)),
      messageAttributes: {},
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:webhook-attempts',
      awsRegion: expect.any(String),
      attributes: { ApproximateReceiveCount: '1', SenderId: expect.any(String) },
    });
    expect(r.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.receiptHandle).toEqual(expect.any(String));
    expect(r.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
    expect(Number(r.attributes.SentTimestamp)).toBeGreaterThanOrEqual(sentAt);
    expect(Number(r.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(sentAt + 1_000);
    await waitFor(() => queue.depth().inFlight === 0);
    expect(queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
  });

  it('refuses a delay SQS would refuse', async () => {
    const queue = newQueue({ consumer: async () => {} });
    await expect(queue.send(msg(1), 901)).rejects.toBeInstanceOf(RangeError);
  });

  it('batches up to batchSize records', async () => {
    const sizes: number[] = [];
    const queue = newQueue({ batchSize: 10, consumer: async (e) => void sizes.push(e.Records.length) });
    for (let i = 0; i < 25; i++) await queue.send(msg(i));
    expect(queue.depth().visible).toBe(25);
    queue.start();
    await waitFor(() => sizes.reduce((a, b) => a + b, 0) === 25);
    expect(sizes.sort((a, b) => b - a)).toEqual([10, 10, 5]);
  });

  it('makes the batch of a consumer that threw visible again after the visibility timeout', async () => {
    const receives: { count: string; at: number }[] = [];
    const queue = newQueue({
      visibilityTimeoutSeconds: 1,
      consumer: async (e) => {
        receives.push({ count: e.Records[0].attributes.ApproximateReceiveCount, at: Date.now() });
        if (receives.length === 1) throw new Error('handler crashed');
      },
    });
    await queue.send(msg(1));
    queue.start();
    await waitFor(() => receives.length === 1);
    await waitFor(() => queue.depth().inFlight === 1);
    expect(queue.depth().visible).toBe(0);
    await waitFor(() => receives.length === 2);
    expect(receives.map((r) => r.count)).toEqual(['1', '2']);
    expect(receives[1].at - receives[0].at).toBeGreaterThanOrEqual(950);
    await waitFor(() => queue.depth().inFlight === 0);
  });

  it('redelivers only the records named in batchItemFailures', async () => {
    const seen: string[][] = [];
    const queue = newQueue({
      visibilityTimeoutSeconds: 0.2,
      consumer: async (e: SQSEvent): Promise<SQSBatchResponse> => {
        seen.push(e.Records.map(idOf));
        const fail = seen.length === 1 ? e.Records.filter((r) => idOf(r) === 'd1') : [];
        return { batchItemFailures: fail.map((r) => ({ itemIdentifier: r.messageId })) };
      },
    });
    for (let i = 0; i < 3; i++) await queue.send(msg(i));
    queue.start();
    await waitFor(() => seen.length === 2);
    expect(seen[0]).toEqual(['d0', 'd1', 'd2']);
    expect(seen[1]).toEqual(['d1']);
    await sleep(400);
    expect(seen).toHaveLength(2);
  });

  it('moves a message to the dead letters after maxReceiveCount receives', async () => {
    let receives = 0;
    const dead: { message: DeliveryMessage; record: SQSRecord }[] = [];
    const queue = newQueue({
      visibilityTimeoutSeconds: 0.05,
      maxReceiveCount: 3,
      consumer: async () => {
        receives++;
        throw new Error('always fails');
      },
      onDeadLetter: (message, record) => dead.push({ message, record }),
    });
    await queue.send(msg(7));
    queue.start();
    await waitFor(() => dead.length === 1);
    expect(receives).toBe(3);
    expect(dead[0].message).toEqual(msg(7));
    expect(dead[0].record.attributes.ApproximateReceiveCount).toBe('3');
    expect(queue.depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 1 });
  });

  it('stop() waits for the batches in flight and then hands over nothing more', async () => {
    let finished = 0;
    let started = 0;
    const queue = newQueue({
      batchSize: 1,
      maxConcurrency: 1,
      consumer: async () => {
        started++;
        await sleep(300);
        finished++;
      },
    });
    await queue.send(msg(1));
    await queue.send(msg(2));
    queue.start();
    await waitFor(() => started === 1);
    await queue.stop();
    expect(finished).toBe(1);
    await sleep(50);
    expect(started).toBe(1);
    expect(queue.depth().visible).toBe(1);
  });
});

describe('LocalScheduler (EventBridge Scheduler one-time schedules)', () => {
  const recording = () => {
    const sent: { message: DeliveryMessage; at: number }[] = [];
    const queue: QueuePort = { send: async (message) => void sent.push({ message, at: Date.now() }) };
    return { queue, sent };
  };

  it('sends the message at the time, once per name, and then deletes the schedule', async () => {
    const { queue, sent } = recording();
    const scheduler = new LocalScheduler({ queue });
    const at = new Date(Date.now() + 300);
    await scheduler.scheduleAt(msg(1), at, 'd1-attempt-4');
    await scheduler.scheduleAt(msg(1), new Date(Date.now() + 50), 'd1-attempt-4');
    expect(scheduler.pending()).toBe(1);
    await sleep(150);
    expect(sent).toHaveLength(0);
    await waitFor(() => sent.length === 1);
    expect(sent[0].message).toEqual(msg(1));
    expect(sent[0].at).toBeGreaterThanOrEqual(at.getTime());
    expect(scheduler.pending()).toBe(0);
    await sleep(100);
    expect(sent).toHaveLength(1);
    scheduler.stop();
  });

  it('sends a time already past at once, and feeds a LocalQueue end to end', async () => {
    const seen: string[] = [];
    const queue = newQueue({ consumer: async (e) => void seen.push(...e.Records.map(idOf)) });
    queue.start();
    const scheduler = new LocalScheduler({ queue });
    await scheduler.scheduleAt(msg(3), new Date(Date.now() - 1_000), 'd3-attempt-2');
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual(['d3']);
    scheduler.stop();
  });

  it('stop() cancels what is pending', async () => {
    const { queue, sent } = recording();
    const scheduler = new LocalScheduler({ queue });
    await scheduler.scheduleAt(msg(1), new Date(Date.now() + 100), 'a');
    await scheduler.scheduleAt(msg(2), new Date(Date.now() + 100), 'b');
    expect(scheduler.pending()).toBe(2);
    scheduler.stop();
    expect(scheduler.pending()).toBe(0);
    await sleep(200);
    expect(sent).toHaveLength(0);
  });

  it('refuses a name EventBridge Scheduler would refuse', async () => {
    const scheduler = new LocalScheduler({ queue: recording().queue });
    await expect(scheduler.scheduleAt(msg(1), new Date(), 'has space')).rejects.toBeInstanceOf(RangeError);
  });
});
