import { join } from 'node:path';
import { webhookSweeper, webhookWorker } from '../../functions/jobs.ts';
import { invokedAs } from '../../shared/aws-calls/identity.ts';
import { LocalKeyService } from '../../shared/ports/key-service.ts';
import { resetPorts, setPorts } from '../../shared/ports/registry.ts';
import { attemptsQueueSettings } from '../constructs/queue-capacity.ts';
import { Journal } from './stand-ins/journal.ts';
import type { LocalExecutions } from './stand-ins/local-executions.ts';
import { LocalQueue, type QueueJournalEntry } from './stand-ins/local-queue.ts';
import { LocalScheduler, type ScheduleJournalEntry } from './stand-ins/local-scheduler.ts';

export interface LocalWebhooks {
  queue: LocalQueue;
  scheduler: LocalScheduler;
  /** Runs the sweeper once now (it also runs every WEBHOOK_SWEEP_SECONDS, default 60). */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The worker's event source mapping. By default the template's queue (six times the worker's
 * timeout, 5 receives: infra/constructs/queue-capacity.ts), 5 batches at once (the template gives
 * a 10-execution account 2) and no throttle.
 */
export interface WebhookMapping {
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
  maxConcurrency?: number;
  /** The account's executions the worker is throttled on, shared with whatever else takes them. */
  executions?: LocalExecutions;
}

/**
 * The webhook pipeline's cloud services, stood in locally behind the same ports: SQS feeding the
 * worker handler (as its event source mapping would), EventBridge Scheduler putting messages
 * back on that queue, KMS replaced by a key file, and the sweeper's one-minute schedule.
 * With `stateDir` (a stack on a data folder) the queue's messages and the pending schedules are
 * kept there and outlive a crash, as SQS and EventBridge Scheduler keep them.
 */
export const startLocalWebhooks = async (options: { keyDir: string; stateDir?: string; mapping?: WebhookMapping }): Promise<LocalWebhooks> => {
  // As their own Lambdas would run them: the worker per queue batch, the sweeper per tick.
  const worker = invokedAs(webhookWorker.name, (await import('../../functions/webhooks/worker/handler.ts')).handler);
  const sweep = invokedAs(webhookSweeper.name, (await import('../../functions/webhooks/sweeper/handler.ts')).sweep);
  const state = options.stateDir;
  const template = attemptsQueueSettings();
  const queue = new LocalQueue({
    consumer: worker,
    batchSize: 10,
    visibilityTimeoutSeconds: template.visibilityTimeoutSeconds,
    maxReceiveCount: template.maxReceiveCount,
    maxConcurrency: 5,
    ...options.mapping,
    journal: state ? new Journal<QueueJournalEntry>(join(state, 'webhook-queue.jsonl')) : undefined,
  });
  const scheduler = new LocalScheduler({ queue, journal: state ? new Journal<ScheduleJournalEntry>(join(state, 'webhook-schedules.jsonl')) : undefined });
  setPorts({ queue, scheduler, keys: new LocalKeyService({ keyFile: join(options.keyDir, 'webhook-secrets.key') }) });
  queue.start();
  const everySeconds = Number(process.env.WEBHOOK_SWEEP_SECONDS ?? 60);
  const timer = setInterval(() => {
    sweep().catch((error: Error) => console.error('webhook sweeper failed:', error.message));
  }, everySeconds * 1000);
  timer.unref();
  return {
    queue,
    scheduler,
    sweep: () => sweep(),
    stop: async () => {
      clearInterval(timer);
      scheduler.stop();
      await queue.stop();
      resetPorts();
    },
  };
};
