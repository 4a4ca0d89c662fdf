import { CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { messageBody, type DeliveryMessage } from './queue.ts';

export interface SchedulerPort {
  /**
   * Puts `message` on the attempts queue at `at`. Idempotent by `name`: a schedule of that name
   * that already exists counts as success. A fired schedule deletes itself, so the name should
   * identify the attempt (e.g. delivery id + attempt number), not only the delivery.
   */
  scheduleAt(message: DeliveryMessage, at: Date, name: string): Promise<void>;
}

const NAME = /^[0-9a-zA-Z\-_.]{1,64}$/;

/** EventBridge Scheduler's own limits, checked locally too so a name that works here works there. */
export const checkScheduleName = (name: string): string => {
  if (!NAME.test(name)) throw new RangeError(`schedule name must be 1-64 characters of [0-9a-zA-Z-_.], got "${name}"`);
  return name;
};

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC. Scheduler has whole seconds only; rounding up means a retry
 * never runs before the time its backoff asked for.
 */
export const atExpression = (at: Date): string => {
  const ms = at.getTime();
  if (Number.isNaN(ms)) throw new RangeError('schedule time is not a valid date');
  return `at(${new Date(Math.ceil(ms / 1000) * 1000).toISOString().slice(0, 19)})`;
};

/** If the queue is briefly unreachable, keep trying for a day (Scheduler's maximum) rather than drop the attempt. */
const RETRY_POLICY = { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 };

export class EventBridgeScheduler implements SchedulerPort {
  private readonly groupName: string;
  private readonly queueArn: string;
  private readonly roleArn: string;
  private readonly client: SchedulerClient;

  constructor(options: { groupName: string; queueArn: string; roleArn: string; client?: SchedulerClient }) {
    this.groupName = options.groupName;
    this.queueArn = options.queueArn;
    this.roleArn = options.roleArn;
    this.client = options.client ?? new SchedulerClient({});
  }

  async scheduleAt(message: DeliveryMessage, at: Date, name: string): Promise<void> {
    const command = new CreateScheduleCommand({
      Name: checkScheduleName(name),
      GroupName: this.groupName,
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: this.queueArn, RoleArn: this.roleArn, Input: messageBody(message), RetryPolicy: RETRY_POLICY },
    });
    try {
      await this.client.send(command);
    } catch (error) {
      // A retried attempt (worker re-run, Lambda retry) finds its own schedule already there.
      if ((error as Error)?.name === 'ConflictException') return;
      throw error;
    }
  }
}
