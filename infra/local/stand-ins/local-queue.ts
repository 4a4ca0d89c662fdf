import { createHash, randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { checkDelaySeconds, messageBody, type QueueMessage } from '../../../shared/ports/queue.ts';
import type { Journal } from './journal.ts';
import type { LocalExecutions } from './local-executions.ts';

export type QueueConsumer = (event: SQSEvent) => Promise<void | SQSBatchResponse>;

export interface LocalQueueOptions<M = QueueMessage> {
  consumer: QueueConsumer;
  batchSize?: number;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  onDeadLetter?: (message: M, record: SQSRecord) => void;
  /** What goes on the wire. @default the webhook message's two ids */
  encode?: (message: M) => string;
  /**
   * The message's group, as MessageGroupId on an SQS fair queue: a receive prefers the visible
   * message whose group has the fewest messages in flight (then the smallest backlog), so a
   * group's backlog never holds back another group's message for longer than one delivery takes.
   * Without it, the order of sending.
   */
  group?: (message: M) => string;
  /** The queue's name in the records' eventSourceARN. @default webhook-attempts */
  name?: string;
  pollMs?: number;
  /** Batches handed over at once, as the event source mapping's maximum concurrency. */
  maxConcurrency?: number;
  /**
   * The executions the consumer's function runs on (the account's, shared with its other
   * functions). A batch that finds none free is throttled as Lambda throttles an SQS mapping:
   * the invoke is retried, backing off, until the batch's visibility timeout runs out; then it
   * shows again and its next receive counts. Without it, never throttled.
   */
  executions?: LocalExecutions;
  /** A consumer that throws; Lambda would log it. */
  onError?: (error: unknown) => void;
  /** Where messages outlive a crash of the process, as SQS keeps them; without it they live in memory. */
  journal?: Journal<QueueJournalEntry>;
}

interface Stored {
  messageId: string;
  body: string;
  sentAt: number;
  /** Until then the message is delayed (never received) or in flight (received, not deleted). */
  visibleAt: number;
  receiveCount: number;
  group?: string;
  firstReceivedAt?: number;
  receiptHandle?: string;
  lastRecord?: SQSRecord;
}

/** A message as it is now (sent, or received again), or gone (deleted, or moved to the dead letters). */
export type QueueJournalEntry = { put: Omit<Stored, 'lastRecord'> } | { delete: string } | { dead: Omit<Stored, 'lastRecord'> };

const stored = ({ lastRecord: _lastRecord, ...rest }: Stored): Omit<Stored, 'lastRecord'> => rest;

/**
 * SQS and Lambda's event source mapping in one process: delays, batches, visibility timeout,
 * partial batch responses and a redrive to a dead-letter list. With a journal, messages persist
 * across a crash as in SQS: one sent, or received and not deleted, is received again after the
 * restart (once its delay or visibility timeout has passed).
 */
export class LocalQueue<M = QueueMessage> {
  private readonly options: Required<Omit<LocalQueueOptions<M>, 'onDeadLetter' | 'journal' | 'group' | 'executions'>> &
    Pick<LocalQueueOptions<M>, 'onDeadLetter' | 'journal' | 'group' | 'executions'>;
  private readonly messages = new Map<string, Stored>();
  private readonly dead: Stored[] = [];
  private readonly batches = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;

  constructor(options: LocalQueueOptions<M>) {
    this.options = {
      batchSize: 10,
      visibilityTimeoutSeconds: 60,
      maxReceiveCount: 5,
      pollMs: 50,
      maxConcurrency: 5,
      onError: (error) => console.error('local queue consumer failed:', (error as Error)?.message ?? error),
      encode: (message: M) => messageBody(message as QueueMessage),
      name: 'webhook-attempts',
      ...options,
    };
    this.restore();
  }

  /** The journal's messages back in place, and the journal cut down to them. */
  private restore(): void {
    const journal = this.options.journal;
    if (!journal) return;
    for (const entry of journal.read()) {
      if ('put' in entry) this.messages.set(entry.put.messageId, { ...entry.put });
      else if ('delete' in entry) this.messages.delete(entry.delete);
      else {
        this.messages.delete(entry.dead.messageId);
        this.dead.push({ ...entry.dead });
      }
    }
    this.compact();
  }

  /** Rewrites the journal to what is live, so it does not grow with every message ever sent. */
  private compact(): void {
    this.options.journal?.rewrite([...[...this.messages.values()].map((m) => ({ put: stored(m) })), ...this.dead.map((m) => ({ dead: stored(m) }))]);
  }

  async send(message: M, delaySeconds = 0): Promise<void> {
    const delay = checkDelaySeconds(delaySeconds);
    const now = Date.now();
    const messageId = randomUUID();
    const m: Stored = { messageId, body: this.options.encode(message), sentAt: now, visibleAt: now + delay * 1000, receiveCount: 0, group: this.options.group?.(message) };
    // Kept before send returns: a message the sender saw accepted survives a crash right after.
    this.options.journal?.append({ put: m });
    this.messages.set(messageId, m);
    // As a long-polling consumer would, a running queue hands a message that is visible at once
    // over without waiting for the next poll.
    if (delay === 0 && this.timer) setImmediate(() => this.poll());
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.poll(), this.options.pollMs);
  }

  /** Stops receiving and waits for the batches already handed over. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    while (this.batches.size > 0) await Promise.allSettled([...this.batches]);
  }

  depth(): { visible: number; delayed: number; inFlight: number; dead: number } {
    const now = Date.now();
    let visible = 0;
    let delayed = 0;
    let inFlight = 0;
    for (const m of this.messages.values()) {
      if (m.visibleAt <= now) visible++;
      else if (m.receiveCount === 0) delayed++;
      else inFlight++;
    }
    return { visible, delayed, inFlight, dead: this.dead.length };
  }

  /** How many times each message still in the queue was received (SQS's ApproximateReceiveCount), in the order sent. */
  receiveCounts(): number[] {
    return [...this.messages.values()].map((m) => m.receiveCount);
  }

  private poll(): void {
    while (this.timer && this.batches.size < this.options.maxConcurrency) {
      const batch = this.receive();
      if (batch.length === 0) return;
      const running = this.deliver(batch).finally(() => this.batches.delete(running));
      this.batches.add(running);
    }
  }

  /** Visible messages in the order a receive takes them: by send, or fairly across groups. */
  private visibleInOrder(now: number): Stored[] {
    const visible = [...this.messages.values()].filter((m) => m.visibleAt <= now);
    if (!this.options.group) return visible;
    const inFlight = new Map<string | undefined, number>();
    for (const m of this.messages.values()) if (m.receiveCount > 0 && m.visibleAt > now) inFlight.set(m.group, (inFlight.get(m.group) ?? 0) + 1);
    const waiting = new Map<string | undefined, number>();
    for (const m of visible) waiting.set(m.group, (waiting.get(m.group) ?? 0) + 1);
    // Fewest in flight first; between equals, the smaller backlog (a quiet tenant before a busy one).
    const rank = (m: Stored) => (inFlight.get(m.group) ?? 0) * 1e9 + (waiting.get(m.group) ?? 0);
    const ordered: Stored[] = [];
    while (visible.length > 0) {
      let best = 0;
      for (let i = 1; i < visible.length; i++) if (rank(visible[i]!) < rank(visible[best]!)) best = i;
      const [next] = visible.splice(best, 1);
      inFlight.set(next!.group, (inFlight.get(next!.group) ?? 0) + 1);
      waiting.set(next!.group, (waiting.get(next!.group) ?? 0) - 1);
      ordered.push(next!);
    }
    return ordered;
  }

  private receive(): Stored[] {
    const now = Date.now();
    const batch: Stored[] = [];
    for (const m of this.visibleInOrder(now)) {
      if (batch.length >= this.options.batchSize) break;
      // As SQS's redrive policy: a message received maxReceiveCount times moves on its next receive.
      if (m.receiveCount >= this.options.maxReceiveCount) {
        this.deadLetter(m);
        continue;
      }
      m.receiveCount++;
      m.firstReceivedAt ??= now;
      m.receiptHandle = randomUUID();
      m.visibleAt = now + this.options.visibilityTimeoutSeconds * 1000;
      this.options.journal?.append({ put: stored(m) });
      batch.push(m);
    }
    return batch;
  }

  private deadLetter(m: Stored): void {
    this.options.journal?.append({ dead: stored(m) });
    this.messages.delete(m.messageId);
    this.dead.push(m);
    try {
      this.options.onDeadLetter?.(JSON.parse(m.body) as M, m.lastRecord!);
    } catch (error) {
      this.options.onError(error);
    }
  }

  private record(m: Stored): SQSRecord {
    return {
      messageId: m.messageId,
      receiptHandle: m.receiptHandle!,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: '000000000000',
        ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt),
      },
      messageAttributes: {},
      md5OfBody: createHash('md5').update(m.body).digest('hex'),
      eventSource: 'aws:sqs',
      eventSourceARN: `arn:aws:sqs:local:000000000000:${this.options.name}`,
      awsRegion: process.env.AWS_REGION ?? 'us-east-1',
    };
  }

  /**
   * An execution for the batch: at once, or after throttled retries that back off (from the poll
   * interval, doubling to a second) and end with the batch's visibility timeout, or when stopped.
   */
  private async execution(batch: Stored[]): Promise<(() => void) | undefined> {
    const executions = this.options.executions;
    if (!executions) return () => undefined;
    const until = Math.min(...batch.map((m) => m.visibleAt));
    for (let wait = this.options.pollMs; ; wait = Math.min(wait * 2, 1_000)) {
      const release = executions.take();
      if (release) return release;
      const left = until - Date.now();
      if (left <= 0 || !this.timer) return undefined;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, left)));
    }
  }

  private async deliver(batch: Stored[]): Promise<void> {
    const release = await this.execution(batch);
    // Throttled until the visibility timeout ran out: the messages show again on their own.
    if (!release) return;
    try {
      await this.invoke(batch);
    } finally {
      release();
    }
  }

  private async invoke(batch: Stored[]): Promise<void> {
    const records = batch.map((m) => (m.lastRecord = this.record(m)));
    let failed: Set<string>;
    try {
      const response = await this.options.consumer({ Records: records });
      const ids = (response?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
      // As Lambda: an identifier that names no record of the batch fails the whole batch.
      failed = ids.every((id) => records.some((r) => r.messageId === id)) ? new Set(ids) : new Set(records.map((r) => r.messageId));
    } catch (error) {
      this.options.onError(error);
      failed = new Set(records.map((r) => r.messageId));
    }
    for (const record of records) {
      if (failed.has(record.messageId)) continue; // stays in flight until its visibility timeout ends
      // A receipt handle from an earlier receive no longer deletes, as in SQS.
      if (this.messages.get(record.messageId)?.receiptHandle === record.receiptHandle) {
        this.options.journal?.append({ delete: record.messageId });
        this.messages.delete(record.messageId);
      }
    }
    // An empty queue is the cheap moment to cut the journal down (only dead letters remain).
    if (this.messages.size === 0) this.compact();
  }
}
