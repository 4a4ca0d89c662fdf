import { Duration, Stack } from 'aws-cdk-lib';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { attemptsQueueSettings, WEBHOOK_WORKER_TIMEOUT_SECONDS } from './queue-capacity.ts';

/** The worker's timeout: its 10 s attempt and the writes around it, well inside. */
export const WEBHOOK_WORKER_TIMEOUT = Duration.seconds(WEBHOOK_WORKER_TIMEOUT_SECONDS);

/**
 * Transport for webhook attempts: a queue (short delays via DelaySeconds, up to 15 minutes),
 * its dead-letter queue, and an EventBridge Scheduler group plus role for one-time schedules
 * that put longer retries back on the queue. The functions that use them (fan-out, worker,
 * sweeper) are in webhook-pipeline.ts; this construct only holds what they need.
 */
export class WebhookQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly scheduleGroup: CfnScheduleGroup;
  readonly scheduleGroupName: string;
  /** Assumed by EventBridge Scheduler; may only send to `queue`. Pass its ARN as the target role. */
  readonly schedulerRole: Role;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    // Six times the worker's timeout and 5 receives (queue-capacity.ts): a throttled batch is
    // retried before it shows again, and throttling alone never dead-letters an attempt.
    const settings = attemptsQueueSettings();
    this.queue = new Queue(this, 'Attempts', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(settings.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: settings.maxReceiveCount },
    });

    // No fixed name: CloudFormation makes one, so a replacement never collides with the old group.
    this.scheduleGroup = new CfnScheduleGroup(this, 'RetrySchedules', {});
    this.scheduleGroupName = this.scheduleGroup.ref;

    // Both conditions guard against the confused deputy: only schedules of this account's
    // retry group may use the role.
    const stack = Stack.of(this);
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.attrArn },
        },
      }),
      description: 'EventBridge Scheduler puts delayed webhook attempts back on the attempts queue',
      // Inline, so the role's only permission is visible on the role itself; the tests pin it.
      inlinePolicies: {
        SendToAttemptQueue: new PolicyDocument({
          statements: [new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] })],
        }),
      },
    });
  }
}
