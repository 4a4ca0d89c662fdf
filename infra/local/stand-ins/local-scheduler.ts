import type { DeliveryMessage, QueuePort } from '../../../shared/ports/queue.ts';
import { checkScheduleName, type SchedulerPort } from '../../../shared/ports/scheduler.ts';
import type { Journal } from './journal.ts';

/** setTimeout's ceiling (~24.8 days); a later schedule waits in several steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A schedule made, or one that fired (and deleted itself). */
export type ScheduleJournalEntry = { schedule: { name: string; at: number; message: DeliveryMessage } } | { fired: string };

/**
 * EventBridge Scheduler's one-time schedules: a timer per name that puts the message on the queue
 * at `at` and then deletes itself, so the name can be used again afterwards, as in the cloud.
 * With a journal, schedules outlive a crash as the service keeps them: after a restart each
 * pending one is armed again (one whose time passed meanwhile fires at once).
 */
export class LocalScheduler implements SchedulerPort {
  private readonly queue: QueuePort;
  private readonly journal?: Journal<ScheduleJournalEntry>;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Schedules that fired and whose message is on its way to the queue. */
  private sending = 0;

  constructor(options: { queue: QueuePort; journal?: Journal<ScheduleJournalEntry> }) {
    this.queue = options.queue;
    this.journal = options.journal;
    if (!this.journal) return;
    const pending = new Map<string, { name: string; at: number; message: DeliveryMessage }>();
    for (const entry of this.journal.read()) {
      if ('schedule' in entry) pending.set(entry.schedule.name, entry.schedule);
      else pending.delete(entry.fired);
    }
    this.journal.rewrite([...pending.values()].map((schedule) => ({ schedule })));
    for (const { name, at, message } of pending.values()) this.arm(name, at, message);
  }

  async scheduleAt(message: DeliveryMessage, at: Date, name: string): Promise<void> {
    checkScheduleName(name);
    const due = at.getTime();
    if (Number.isNaN(due)) throw new RangeError('schedule time is not a valid date');
    if (this.timers.has(name)) return;
    const payload = { tenantId: message.tenantId, deliveryId: message.deliveryId };
    this.journal?.append({ schedule: { name, at: due, message: payload } });
    this.arm(name, due, payload);
  }

  private arm(name: string, due: number, payload: DeliveryMessage): void {
    // Re-checks the clock on each wake: a timer may fire a little early, and a far time takes several.
    const wait = (): void => {
      const ms = due - Date.now();
      if (ms > 0) {
        this.timers.set(name, setTimeout(wait, Math.min(ms, MAX_TIMER_MS)));
        return;
      }
      this.timers.delete(name);
      this.sending++;
      this.queue
        .send(payload)
        // Deleted once its message is on the queue: a crash in between fires it again, at least once as in the cloud.
        .then(() => {
          this.journal?.append({ fired: name });
          // Nothing pending: the journal is cut down to nothing, so it does not grow forever.
          if (this.timers.size === 0 && this.sending === 1) this.journal?.rewrite([]);
        })
        .catch((error) => console.error(`local schedule ${name} could not send:`, (error as Error).message))
        .finally(() => this.sending--);
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
