import type { DeliveryMessage, QueuePort } from '../../../shared/ports/queue.ts';
import { checkScheduleName, type SchedulerPort } from '../../../shared/ports/scheduler.ts';

/** setTimeout's ceiling (~24.8 days); a later schedule waits in several steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * EventBridge Scheduler's one-time schedules: a timer per name that puts the message on the queue
 * at `at` and then deletes itself, so the name can be used again afterwards, as in the cloud.
 * Nothing persists across restarts (the webhooks sweeper recovers what was due).
 */
export class LocalScheduler implements SchedulerPort {
  private readonly queue: QueuePort;
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(options: { queue: QueuePort }) {
    this.queue = options.queue;
  }

  async scheduleAt(message: DeliveryMessage, at: Date, name: string): Promise<void> {
    checkScheduleName(name);
    const due = at.getTime();
    if (Number.isNaN(due)) throw new RangeError('schedule time is not a valid date');
    if (this.timers.has(name)) return;
    const payload = { tenantId: message.tenantId, deliveryId: message.deliveryId };
    // Re-checks the clock on each wake: a timer may fire a little early, and a far time takes several.
    const wait = (): void => {
      const ms = due - Date.now();
      if (ms > 0) {
        this.timers.set(name, setTimeout(wait, Math.min(ms, MAX_TIMER_MS)));
        return;
      }
      this.timers.delete(name);
      this.queue.send(payload).catch((error) => console.error(`local schedule ${name} could not send:`, (error as Error).message));
    };
    wait();
  }

  pending(): number {
    return this.timers.size;
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
