import { importWorker } from '../../functions/jobs.ts';
import { invokedAs } from '../../shared/aws-calls/identity.ts';
import { importMessageBody, importMessageGroup, setImportQueue, type ImportQueueMessage } from '../../shared/ports/import-queue.ts';
import { join } from 'node:path';
import { Journal } from './stand-ins/journal.ts';
import { LocalQueue, type QueueJournalEntry } from './stand-ins/local-queue.ts';

export interface LocalImports {
  queue: LocalQueue<ImportQueueMessage>;
  stop(): Promise<void>;
}

/**
 * The import queue stood in locally behind the same port: SQS and the worker's event source
 * mapping (batch of 1, as in the cloud, so one import's pages never overlap in one batch).
 * With `stateDir` its messages outlive a crash, as SQS keeps them: locally no hourly schedule
 * re-sends an idle import's message, so a message lost in a crash left the import running forever.
 */
export const startLocalImports = async (options: { stateDir?: string } = {}): Promise<LocalImports> => {
  // Invoked as the worker's Lambda, so the IAM check holds its calls against that role.
  const handler = invokedAs(importWorker.name, (await import('../../functions/records/imports/worker-handler.ts')).handler);
  const queue = new LocalQueue<ImportQueueMessage>({
    consumer: handler,
    batchSize: 1,
    // Long enough for one page of parties with their contacts at 10 requests a second.
    visibilityTimeoutSeconds: Number(process.env.IMPORT_VISIBILITY_TIMEOUT_SECONDS ?? 60),
    maxReceiveCount: 5,
    encode: importMessageBody,
    // As SQS fair queues: one tenant's backlog does not hold back another tenant's first page.
    group: importMessageGroup,
    name: 'record-imports',
    journal: options.stateDir ? new Journal<QueueJournalEntry>(join(options.stateDir, 'import-queue.jsonl')) : undefined,
  });
  setImportQueue(queue);
  queue.start();
  return {
    queue,
    stop: async () => {
      await queue.stop();
      setImportQueue(undefined);
    },
  };
};
