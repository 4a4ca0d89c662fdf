import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../../infra/local/stand-ins/journal.ts';
import { LocalQueue, type QueueJournalEntry } from '../../../infra/local/stand-ins/local-queue.ts';
import { LocalScheduler, type ScheduleJournalEntry } from '../../../infra/local/stand-ins/local-scheduler.ts';
import type { DeliveryMessage, QueuePort } from '../../../shared/ports/queue.ts';

const dir = mkdtempSync(join(tmpdir(), 'stand-ins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    const sent: { message: DeliveryMessage; at: number }[] = [];
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
    const sent: DeliveryMessage[] = [];
    const scheduler = new LocalScheduler({ queue: { send: async (m) => void sent.push(m) }, journal: scheduleFile });
    for (let i = 0; i < 5; i++) await scheduler.scheduleAt(msg(i), new Date(Date.now() + 20), `d${i}-attempt-4`);
    await waitFor(() => sent.length === 5);
    await sleep(20);
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
