import { join } from 'node:path';
import { previewSweeper, previewWorker } from '../../functions/jobs.ts';
import type { SweepRun } from '../../functions/routing/previews/sweep.ts';
import { invokedAs } from '../../shared/aws-calls/identity.ts';
import { setPlanningEngine } from '../../shared/planning/engine.ts';
import { threadedOptimizer } from '../../shared/planning/optimizer/threaded.ts';
import { previewMessageBody, previewMessageGroup, setPreviewQueue, type PreviewMessage } from '../../shared/ports/preview-queue.ts';
import { Journal } from './stand-ins/journal.ts';
import { LocalQueue, type QueueJournalEntry } from './stand-ins/local-queue.ts';

export interface LocalPreviews {
  queue: LocalQueue<PreviewMessage>;
  /** Runs the sweeper once (it also runs every PREVIEW_SWEEP_SECONDS, default 60); `now` to look from a later time. */
  sweep(now?: Date): Promise<SweepRun>;
  stop(): Promise<void>;
}

/**
 * The route previews' queue stood in locally behind the same port (SQS and the worker's event
 * source mapping, batches of 1) and the sweeper's one-minute schedule as a timer. With
 * `stateDir` the queue's messages outlive a crash, as SQS keeps them.
 */
export const startLocalPreviews = async (options: { stateDir?: string } = {}): Promise<LocalPreviews> => {
  // Invoked as their own Lambdas, so the IAM check holds their calls against those roles.
  const worker = invokedAs(previewWorker.name, (await import('../../functions/routing/previews/worker-handler.ts')).handler);
  const sweep = invokedAs(previewSweeper.name, (await import('../../functions/routing/previews/sweep.ts')).sweepPreviews);
  const queue = new LocalQueue<PreviewMessage>({
    consumer: worker,
    batchSize: 1,
    // A solve takes up to its time limit (120 s) and the lease's margin; the cloud queue's timeout covers the worker's.
    visibilityTimeoutSeconds: Number(process.env.PREVIEW_VISIBILITY_TIMEOUT_SECONDS ?? 240),
    maxReceiveCount: 5,
    maxConcurrency: 1,
    encode: previewMessageBody,
    group: previewMessageGroup,
    name: 'route-previews',
    journal: options.stateDir ? new Journal<QueueJournalEntry>(join(options.stateDir, 'preview-queue.jsonl')) : undefined,
  });
  setPreviewQueue(queue);
  // The gateway and the worker share this process's event loop: the solve runs beside it.
  setPlanningEngine(threadedOptimizer());
  queue.start();
  const everySeconds = Number(process.env.PREVIEW_SWEEP_SECONDS ?? 60);
  const timer = setInterval(() => {
    sweep().catch((error: Error) => console.error('preview sweeper failed:', error.message));
  }, everySeconds * 1000);
  timer.unref();
  return {
    queue,
    sweep: (now) => sweep(now),
    stop: async () => {
      clearInterval(timer);
      await queue.stop();
      setPreviewQueue(undefined);
      setPlanningEngine(undefined);
    },
  };
};
