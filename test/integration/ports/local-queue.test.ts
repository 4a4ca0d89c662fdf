import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../../infra/local/stand-ins/journal.ts';
import { LocalQueue, type QueueJournalEntry } from '../../../infra/local/stand-ins/local-queue.ts';
import { LocalScheduler, type ScheduleJournalEntry } from '../../../infra/local/stand-ins/local-scheduler.ts';
import type { DeliveryMessage, QueueMessage, QueuePort } from '../../../shared/ports/queue.ts';
import { msg, useLocalQueues, waitFor } from './local-queue-support.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const idOf = (r: SQSRecord) => (JSON.parse(r.body) as DeliveryMessage).deliveryId;
const { newQueue, stopAfterEach } = useLocalQueues();

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
    const dead: { message: QueueMessage; record: SQSRecord }[] = [];
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
    const sent: { message: QueueMessage; at: number }[] = [];
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
    await waitFor(() => sent.length === 1);
    expect(sent[0].message).toEqual(msg(1));
    // Sent at its time, not at the repeat's earlier one: the repeat did not replace it. (A check that
    // nothing was sent after 150 ms would fail on a machine too busy to wake within 300 ms.)
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

const dir = mkdtempSync(join(tmpdir(), 'stand-ins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const journal = <T>() => new Journal<T>(join(dir, `journal-${++files}.jsonl`));

/** A crash: the process stops polling and abandons whatever it was doing, with nothing flushed. */
const crash = (queue: LocalQueue) => void queue.stop();

// SQS and EventBridge Scheduler keep messages and schedules when the stack's process dies; the
// stand-ins lost them (npm run chaos kills the local stack with SIGKILL).
describe('the queue and scheduler stand-ins across a crash of the local stack', () => {
  it('hands over again every message sent and not yet deleted, and never one already deleted', async () => {
    const file = journal<QueueJournalEntry>();
    const seenBefore: string[] = [];
    const never = new Promise<void>(() => {});
    const before = new LocalQueue({
      pollMs: 5,
      visibilityTimeoutSeconds: 1,
      journal: file,
      // d1 is handled and deleted; d2 is in flight when the process dies.
      consumer: async (event) => {
        for (const r of event.Records) seenBefore.push(idOf(r));
        if (event.Records.some((r) => idOf(r) === 'd2')) await never;
      },
    });
    before.start();
    await before.send(msg(1));
    await waitFor(() => seenBefore.includes('d1') && before.depth().inFlight === 0);
    await before.send(msg(2));
    await waitFor(() => seenBefore.includes('d2'));
    await before.send(msg(3), 1); // still delayed when the process dies
    crash(before);

    const seenAfter: SQSRecord[] = [];
    const after = new LocalQueue({ pollMs: 5, journal: file, consumer: async (event) => void seenAfter.push(...event.Records) });
    expect(after.depth()).toMatchObject({ visible: 0, delayed: 1, inFlight: 1 });
    after.start();
    await waitFor(() => seenAfter.length === 2);
    await sleep(100);
    await after.stop();
    expect(seenAfter.map(idOf).sort()).toEqual(['d2', 'd3']);
    // As SQS counts receives: d2 was received once before the crash.
    expect(seenAfter.find((r) => idOf(r) === 'd2')!.attributes.ApproximateReceiveCount).toBe('2');
    expect(new LocalQueue({ journal: file, consumer: async () => {} }).depth()).toEqual({ visible: 0, delayed: 0, inFlight: 0, dead: 0 });
  });

  it('arms again every schedule that had not fired, and fires none twice', async () => {
    const file = journal<ScheduleJournalEntry>();
    const sent: { message: QueueMessage; at: number }[] = [];
    const queue: QueuePort = { send: async (message) => void sent.push({ message, at: Date.now() }) };
    const before = new LocalScheduler({ queue, journal: file });
    const later = new Date(Date.now() + 400);
    await before.scheduleAt(msg(1), new Date(Date.now() + 20), 'd1-attempt-4');
    await before.scheduleAt(msg(2), later, 'd2-attempt-4');
    await waitFor(() => sent.length === 1);
    before.stop(); // the process dies: its timers with it

    const after = new LocalScheduler({ queue, journal: file });
    expect(after.pending()).toBe(1);
    await waitFor(() => sent.length === 2);
    await sleep(100);
    after.stop();
    expect(sent.map((s) => s.message)).toEqual([msg(1), msg(2)]);
    expect(sent[1].at).toBeGreaterThanOrEqual(later.getTime());
    expect(new LocalScheduler({ queue, journal: file }).pending()).toBe(0);
  });

  it('cuts the journals down once nothing is pending, so they do not grow with every message', async () => {
    const queueFile = journal<QueueJournalEntry>();
    const queue = new LocalQueue({ pollMs: 5, journal: queueFile, consumer: async () => {} });
    queue.start();
    for (let i = 0; i < 20; i++) await queue.send(msg(i));
    await waitFor(() => queue.depth().visible + queue.depth().inFlight === 0);
    await queue.stop();
    expect(queueFile.read()).toEqual([]);

    const scheduleFile = journal<ScheduleJournalEntry>();
    const sent: QueueMessage[] = [];
    const scheduler = new LocalScheduler({ queue: { send: async (m) => void sent.push(m) }, journal: scheduleFile });
    for (let i = 0; i < 5; i++) await scheduler.scheduleAt(msg(i), new Date(Date.now() + 20), `d${i}-attempt-4`);
    await waitFor(() => sent.length === 5);
    // Each entry leaves the journal once its message is on the queue: after the send, not with it.
    await waitFor(() => scheduleFile.read().length === 0);
    expect(scheduleFile.read()).toEqual([]);
  });

  it('reads a journal whose last line a kill cut short as if that write never happened', () => {
    const file = journal<QueueJournalEntry>();
    file.append({ put: { messageId: 'm1', body: JSON.stringify(msg(1)), sentAt: 0, visibleAt: 0, receiveCount: 0 } });
    appendFileSync(file.file, '{"delete":"m');
    expect(file.read()).toEqual([{ put: { messageId: 'm1', body: JSON.stringify(msg(1)), sentAt: 0, visibleAt: 0, receiveCount: 0 } }]);
    expect(new LocalQueue({ journal: file, consumer: async () => {} }).depth().visible).toBe(1);
  });
});

describe('LocalQueue with message groups (SQS fair queues, as the import queue uses it)', () => {
  it('serves another group’s message before a backlogged group’s next one: one delivery’s wait at most', async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const queue = stopAfterEach(new LocalQueue<{ tenantId: string; n: number }>({
      pollMs: 5,
      onError: () => {},
      batchSize: 1,
      maxConcurrency: 5,
      encode: (m) => JSON.stringify(m),
      group: (m) => m.tenantId,
      consumer: async (e) => {
        const m = JSON.parse(e.Records[0]!.body) as { tenantId: string; n: number };
        started.push(`${m.tenantId}${m.n}`);
        await gate;
      },
    }));
    // One tenant's 20 imports, five of them in flight (every worker busy)...
    for (let n = 0; n < 20; n++) await queue.send({ tenantId: 'a', n });
    queue.start();
    await waitFor(() => started.length === 5);
    // ...then another tenant's first page: the next free worker takes it, before any of the 15 waiting.
    await queue.send({ tenantId: 'b', n: 0 });
    release();
    await waitFor(() => started.length === 21);
    expect(started.indexOf('b0')).toBe(5);
  });
});
