import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { importSchedule, importWorker } from '../../functions/jobs.ts';
import { MAX_RECEIVES } from '../../functions/records/imports/run-page.ts';
import type { DataTable } from './data-table.ts';
import { DEFAULT_ACCOUNT_CONCURRENCY, MINIMUM_MAX_RECEIVE_COUNT, visibilitySeconds, workerConcurrency } from './queue-capacity.ts';
import { ServiceFunction } from './service-function.ts';

export interface RecordImportsProps {
  data: DataTable;
  /** The integrations function: it queues imports (POST .../imports) and answers provider notices. */
  apiFunction: ServiceFunction;
  serviceName: string;
  /** Imports running at once at most (the SQS mapping's maximum concurrency). @default the share of a 10-execution account (queue-capacity.ts) */
  concurrency?: number;
  /** Also reserve `concurrency` for the worker (only when the account's quota covers it). @default false */
  reserveConcurrency?: boolean;
}

/** One page of parties reads up to 50 clients' contacts at 10 requests a second, plus waited-out 429s. */
export const IMPORT_WORKER_TIMEOUT = Duration.seconds(150);

/**
 * The worker fails an import on a page's MAX_RECEIVES-th delivery, so SQS must deliver it once
 * more than that before dead-lettering; at least AWS's 5 (queue-capacity.ts).
 */
export const IMPORT_MAX_RECEIVE_COUNT = Math.max(MAX_RECEIVES + 1, MINIMUM_MAX_RECEIVE_COUNT);

/**
 * Imports of decisions 10: a queue with one message per provider page and its dead-letter queue,
 * the worker that reads, judges and commits a page, and the hourly schedule that imports every
 * active connection (and resumes an import whose next message was lost). The worker's provider
 * access (settings, the sealed token's KMS key) is granted by BillingProviderAccess in the stack.
 */
export class RecordImports extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly scheduler: ServiceFunction;
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly backlogAlarm: Alarm;

  constructor(scope: Construct, id: string, props: RecordImportsProps) {
    super(scope, id);
    const { data } = props;

    this.deadLetterQueue = new Queue(this, 'DeadLetters', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'Pages', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the worker's timeout: a page still running is never handed to a second worker,
      // and a throttled batch is retried before it shows again.
      visibilityTimeout: Duration.seconds(visibilitySeconds(IMPORT_WORKER_TIMEOUT.toSeconds())),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: IMPORT_MAX_RECEIVE_COUNT },
    });

    const environment = { TABLE_NAME: data.table.tableName, POWERTOOLS_SERVICE_NAME: props.serviceName, IMPORT_QUEUE_URL: this.queue.queueUrl };
    const allowSend = (fn: ServiceFunction) => fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));

    this.worker = new ServiceFunction(this, 'Worker', { name: importWorker.name, entry: importWorker.entry, environment, timeout: IMPORT_WORKER_TIMEOUT, memorySize: 512 });
    const concurrency = props.concurrency ?? workerConcurrency(DEFAULT_ACCOUNT_CONCURRENCY).imports;
    // A few imports at once: each is one message at a time, and the provider limits each token
    // anyway. The mapping's maximum concurrency bounds it with or without a reservation.
    if (props.reserveConcurrency) (this.worker.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = concurrency;
    data.grantAccess(this.worker.function, importWorker.table);
    allowSend(this.worker);
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: concurrency }));

    this.scheduler = new ServiceFunction(this, 'Hourly', { name: importSchedule.name, entry: importSchedule.entry, environment, timeout: Duration.minutes(5) });
    data.grantAccess(this.scheduler.function, importSchedule.table);
    allowSend(this.scheduler);
    this.scheduler.function.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'ImportEveryHour', {
      description: 'Imports every active billing provider connection',
      schedule: Schedule.rate(Duration.hours(1)),
      targets: [new LambdaFunction(this.scheduler.function, { retryAttempts: 0 })],
    });

    props.apiFunction.function.addEnvironment('IMPORT_QUEUE_URL', this.queue.queueUrl);
    allowSend(props.apiFunction);

    this.functions = new Map([
      [importWorker.name, this.worker.function],
      [importSchedule.name, this.scheduler.function],
    ]);
    this.backlogAlarm = new Alarm(this, 'PagesBacklog', {
      alarmDescription: 'An import page has waited more than 30 minutes: the import worker is not running or keeps failing.',
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1800,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    Validations.of(this.worker.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which do not support resource-level permissions.',
    });
  }
}
