import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CfnFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_TIME_LIMIT_SECONDS } from '../../functions/routing/preview-schemas.ts';
import { previewSweeper, previewWorker } from '../../functions/jobs.ts';
import type { DataTable } from './data-table.ts';
import { DEFAULT_ACCOUNT_CONCURRENCY, MINIMUM_MAX_RECEIVE_COUNT, visibilitySeconds, workerConcurrency } from './queue-capacity.ts';
import { ServiceFunction } from './service-function.ts';

export interface RoutePreviewsProps {
  data: DataTable;
  /** The routing function: POST /v1/routing/previews queues the preview it stores. */
  apiFunction: ServiceFunction;
  serviceName: string;
  /**
   * Previews solved at once at most: the SQS mapping's maximum concurrency (2 is the least SQS
   * accepts, and a solve holds its execution for up to three minutes). @default 2 (queue-capacity.ts)
   */
  concurrency?: number;
  /** Also reserve `concurrency` for the worker (only when the account's quota covers it). @default false */
  reserveConcurrency?: boolean;
}

/**
 * Lambda gives a function one full vCPU at 1,769 MB. The solve is CPU-bound and single-threaded,
 * so less memory would slow it (its budget is CPU seconds, so the wall clock would stretch) and
 * more would buy a second core it cannot use. A 1,000-order problem's matrices are 16 MB; the
 * rest leaves the heap far below 1 GB.
 */
export const PREVIEW_WORKER_MEMORY_MB = 1769;

/**
 * The longest solve (timeLimitSeconds at most 120 CPU seconds, on one full core about as many
 * wall seconds), plus a minute to load up to 1,000 orders, build the matrices and commit the
 * routes: the worker's longest lease (functions/routing/previews/lifecycle.ts, time limit plus a
 * 60 s margin from the claim). The claim comes after the invocation starts, so Lambda stops a
 * worker no later than its lease ends and never leaves it running while another takes it over.
 */
export const PREVIEW_WORKER_TIMEOUT = Duration.seconds(MAX_TIME_LIMIT_SECONDS + 60);

/**
 * Six times the worker's timeout (queue-capacity.ts), so a message Lambda is still retrying
 * through throttles is not handed out again meanwhile. A crashed or overtaken worker's preview
 * does not wait for it: the sweeper sends a new message once the lease has ended (a queued
 * preview's after a minute).
 */
export const PREVIEW_QUEUE_VISIBILITY = Duration.seconds(visibilitySeconds(PREVIEW_WORKER_TIMEOUT.toSeconds()));

/** A preview waiting this long for a worker means the workers are stuck or too few. */
const BACKLOG_ALARM_SECONDS = 600;

/**
 * Route previews of decisions 15: the queue the routing function sends each new preview to, its
 * dead-letter queue, the worker that solves one preview per invocation, and the every-minute
 * sweeper that sends a queued preview's message again after a minute, a solving one's when its
 * worker's lease ended, and fails one past its time limit plus 5 minutes. The worker and sweeper get exactly the table access of their entries in functions/jobs.ts.
 */
export class RoutePreviews extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly worker: ServiceFunction;
  readonly sweeper: ServiceFunction;
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly backlogAlarm: Alarm;

  constructor(scope: Construct, id: string, props: RoutePreviewsProps) {
    super(scope, id);
    const { data } = props;

    this.deadLetterQueue = new Queue(this, 'DeadLetters', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'Previews', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: PREVIEW_QUEUE_VISIBILITY,
      // At least AWS's 5, so throttling alone never dead-letters a preview; one that keeps
      // crashing its worker is failed by the sweeper past its time limit plus 5 minutes anyway.
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MINIMUM_MAX_RECEIVE_COUNT },
    });

    const environment = { TABLE_NAME: data.table.tableName, POWERTOOLS_SERVICE_NAME: props.serviceName };
    const allowSend = (fn: ServiceFunction) => fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));

    this.worker = new ServiceFunction(this, 'Worker', {
      name: previewWorker.name,
      entry: previewWorker.entry,
      environment,
      timeout: PREVIEW_WORKER_TIMEOUT,
      memorySize: PREVIEW_WORKER_MEMORY_MB,
    });
    const concurrency = props.concurrency ?? workerConcurrency(DEFAULT_ACCOUNT_CONCURRENCY).previews;
    if (props.reserveConcurrency) (this.worker.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = concurrency;
    data.grantAccess(this.worker.function, previewWorker.table);
    // One preview per invocation: a batch would make the later previews wait out the first's solve.
    this.worker.function.addEventSource(new SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: concurrency }));

    this.sweeper = new ServiceFunction(this, 'Sweeper', {
      name: previewSweeper.name,
      entry: previewSweeper.entry,
      environment: { ...environment, PREVIEW_QUEUE_URL: this.queue.queueUrl },
      // Finished before the next run starts.
      timeout: Duration.seconds(50),
    });
    data.grantAccess(this.sweeper.function, previewSweeper.table);
    allowSend(this.sweeper);
    // A failed run is repeated by the next one a minute later; async retries would only overlap it.
    this.sweeper.function.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'EveryMinute', {
      description: 'Sends again the messages of previews not started or whose worker lease ended, and fails previews past their time limit plus 5 minutes',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.sweeper.function, { retryAttempts: 0 })],
    });

    props.apiFunction.function.addEnvironment('PREVIEW_QUEUE_URL', this.queue.queueUrl);
    allowSend(props.apiFunction);

    this.functions = new Map([
      [previewWorker.name, this.worker.function],
      [previewSweeper.name, this.sweeper.function],
    ]);
    this.backlogAlarm = new Alarm(this, 'PreviewsBacklog', {
      alarmDescription: `A route preview has waited more than ${BACKLOG_ALARM_SECONDS / 60} minutes for a worker: the worker is failing, throttled, or ${concurrency} at once are too few.`,
      metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: BACKLOG_ALARM_SECONDS,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
