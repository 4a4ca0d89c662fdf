import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { localDynamoAccess } from '../../shared/table/local-access.ts';
import { onLocalTableWrite } from '../../shared/table/local-write-signal.ts';

/** A stream consumer is the same handler the cloud's event source mapping invokes. */
export type StreamConsumer = (event: DynamoDBStreamEvent) => Promise<void | DynamoDBBatchResponse>;

export interface Checkpoints {
  load(consumer: string): Record<string, string>;
  save(consumer: string, shardId: string, sequenceNumber: string): void;
}

export const memoryCheckpoints = (): Checkpoints => {
  const all = new Map<string, Record<string, string>>();
  return {
    load: (consumer) => ({ ...(all.get(consumer) ?? {}) }),
    save: (consumer, shardId, sequence) => all.set(consumer, { ...(all.get(consumer) ?? {}), [shardId]: sequence }),
  };
};

/** Errors after which an iterator is useless: only a new one reads on. */
const LOST_ITERATOR = new Set(['TrimmedDataAccessException', 'ExpiredIteratorException']);

interface ShardCursor {
  iterator?: string;
  done: boolean;
}

/** Lambda hands records over in this shape; the SDK's dates and casing are turned into it here. */
const toLambdaRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord => ({
  eventID: record.eventID,
  eventName: record.eventName as DynamoDBRecord['eventName'],
  eventVersion: record.eventVersion,
  eventSource: 'aws:dynamodb',
  awsRegion: record.awsRegion ?? 'us-east-1',
  eventSourceARN: streamArn,
  dynamodb: {
    ...(record.dynamodb as DynamoDBRecord['dynamodb']),
    ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime
      ? Math.floor(new Date(record.dynamodb.ApproximateCreationDateTime).getTime() / 1000)
      : undefined,
  },
});

/**
 * Reads the table's stream the way a Lambda event source mapping does: each consumer has its
 * own position per shard, gets batches in order, and a failed batch is handed over again from
 * the first failed record, so consumers see every record at least once.
 */
export class StreamReader {
  private readonly client: DynamoDBStreamsClient;
  private running = false;
  private loop?: Promise<void>;
  /** The idle consumers' waits: a write of this process ends them (shared/table/local-write-signal.ts). */
  private readonly sleepers = new Set<() => void>();
  private unsubscribe?: () => void;
  /** Writes seen so far: a round that saw one begin is followed by another without a wait. */
  private writes = 0;

  constructor(
    endpoint: string,
    private readonly streamArn: string,
    private readonly consumers: Record<string, StreamConsumer>,
    private readonly checkpoints: Checkpoints = memoryCheckpoints(),
    private readonly options: { idleMs?: number; batchSize?: number; onError?: (consumer: string, error: unknown) => void } = {},
  ) {
    this.client = new DynamoDBStreamsClient({ endpoint, ...localDynamoAccess() });
    // Its log filter walks every record of every batch for a logger nobody set (shared/table/client.ts).
    this.client.middlewareStack.remove('loggerMiddleware');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = onLocalTableWrite(() => this.wake());
    this.loop = Promise.all(Object.entries(this.consumers).map(([name, consumer]) => this.consume(name, consumer))).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake();
    await this.loop;
    this.client.destroy();
  }

  private wake(): void {
    this.writes++;
    // Each sleeper leaves the set when its wait ends, so a later wake (stop's) still reaches it.
    for (const sleeper of this.sleepers) sleeper();
  }

  /**
   * An idle consumer waits `idleMs` (500 ms) or until this process writes to the table, but reads
   * at most every 100 ms from the start of its last round, as it did before. A write after a quiet
   * spell is read at once; a stream of writes is read every 100 ms, not once per write (that cost
   * more than the idle polls it saved). Writes of this process are the gateway's handlers', the
   * stand-ins' workers' and a test's own; another process's wait for the poll. Polling every 100 ms
   * whatever happened cost each idle stack about 5% of a core (docs/testing.md).
   */
  private idle(roundStartedAt: number, written: boolean): Promise<void> {
    const earliest = roundStartedAt + 100;
    return new Promise((resolve) => {
      const sleepers = this.sleepers;
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(woken);
        resolve();
      };
      // Stays among the sleepers: stop() ends a wait that a write has already shortened.
      const woken = () => {
        clearTimeout(timer);
        if (!this.running) return done();
        timer = setTimeout(done, Math.max(0, earliest - performance.now()));
      };
      if (written) return woken();
      timer = setTimeout(done, this.options.idleMs ?? 500);
      sleepers.add(woken);
    });
  }

  private async shards(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: start }));
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    return shards;
  }

  private async iteratorFor(shardId: string, after: string | undefined): Promise<string | undefined> {
    const { ShardIterator } = await this.client.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ShardIteratorType: after ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
        SequenceNumber: after,
      }),
    );
    return ShardIterator;
  }

  private async consume(name: string, consumer: StreamConsumer): Promise<void> {
    const positions = this.checkpoints.load(name);
    const cursors = new Map<string, ShardCursor>();
    // On the monotonic clock 0 is the process's start: -Infinity makes the first round describe the shards.
    let lastDescribe = -Infinity;
    let shardList: Shard[] = [];
    /** Shards whose checkpoint the last read refused as trimmed. */
    const refused = new Set<string>();
    while (this.running) {
      let busy = false;
      const writesBefore = this.writes;
      // Monotonic: a test that moves the wall clock (vitest's fake Date) once made a round wait
      // the days it jumped, and the stack's stop() hung on it.
      const roundStartedAt = performance.now();
      try {
        if (roundStartedAt - lastDescribe > 1_000) {
          shardList = await this.shards();
          lastDescribe = performance.now();
        }
        for (const shard of shardList) {
          const id = shard.ShardId!;
          // A child shard waits until its parent is read to the end, as Lambda does, to keep order.
          if (shard.ParentShardId && cursors.has(shard.ParentShardId) && !cursors.get(shard.ParentShardId)!.done) continue;
          let cursor = cursors.get(id);
          if (!cursor) {
            cursor = { iterator: await this.iteratorFor(id, positions[id]), done: false };
            cursors.set(id, cursor);
          }
          if (cursor.done || !cursor.iterator) continue;
          let page;
          try {
            page = await this.client.send(new GetRecordsCommand({ ShardIterator: cursor.iterator, Limit: this.options.batchSize ?? 100 }));
          } catch (error) {
            if (!LOST_ITERATOR.has((error as Error).name)) throw error;
            // The iterator is no good and never will be: ask for a new one from the checkpoint.
            // DynamoDB Local refuses a new table's shard this way now and then (aws-sdk-java#2923);
            // retrying the same iterator kept a consumer stuck for the rest of a test file.
            // A checkpoint refused twice in a row is itself past the trim horizon (a data folder
            // left for over a day): read from the horizon, as a Lambda that fell behind does.
            cursors.delete(id);
            const trimmedCheckpoint = (error as Error).name === 'TrimmedDataAccessException' && positions[id] !== undefined;
            if (trimmedCheckpoint && refused.delete(id)) delete positions[id];
            else if (trimmedCheckpoint) refused.add(id);
            this.options.onError?.(name, error);
            continue;
          }
          refused.delete(id);
          const { Records = [], NextShardIterator } = page;
          if (Records.length > 0) {
            busy = true;
            const handled = await this.deliver(name, consumer, Records);
            if (handled < Records.length) {
              // Re-read from the first record not handled, on the next round.
              const resumeAfter = handled > 0 ? Records[handled - 1].dynamodb!.SequenceNumber! : positions[id];
              cursor.iterator = await this.iteratorFor(id, resumeAfter);
              continue;
            }
            const last = Records[Records.length - 1].dynamodb!.SequenceNumber!;
            positions[id] = last;
            this.checkpoints.save(name, id, last);
          }
          cursor.iterator = NextShardIterator;
          if (!NextShardIterator) cursor.done = true;
        }
      } catch (error) {
        this.options.onError?.(name, error);
      }
      // A write during the round may have come after its read of the shard: read again soon.
      if (!busy && this.running) await this.idle(roundStartedAt, this.writes !== writesBefore);
    }
  }

  /** Returns how many records, from the start of the batch, were handled. */
  private async deliver(name: string, consumer: StreamConsumer, records: StreamRecord[]): Promise<number> {
    const event: DynamoDBStreamEvent = { Records: records.map((r) => toLambdaRecord(r, this.streamArn)) };
    try {
      const response = await consumer(event);
      const failures = response?.batchItemFailures ?? [];
      if (failures.length === 0) return records.length;
      const failedIndexes = failures.map((f) => records.findIndex((r) => r.dynamodb?.SequenceNumber === f.itemIdentifier)).filter((i) => i >= 0);
      return failedIndexes.length > 0 ? Math.min(...failedIndexes) : 0;
    } catch (error) {
      this.options.onError?.(name, error);
      await new Promise((r) => setTimeout(r, 500));
      return 0;
    }
  }
}
