import { ArnFormat, Duration, Lazy, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { Key, type IKey } from 'aws-cdk-lib/aws-kms';
import { CfnFunction, FilterCriteria, FilterRule, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { CfnQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { sealedReplayOperations } from '../../functions/index.ts';
import { webhookSweeper, webhookWorker } from '../../functions/jobs.ts';
import { streamConsumerGroups } from '../../functions/stream-consumers.ts';
import { EVENT_ENTITY } from '../../shared/events/outbox.ts';
import { ENDPOINT_ENTITY, RECOVERY_ENTITY } from '../../functions/webhooks/entities.ts';
import { RESPONSE_SEAL_CONTEXT_KEYS } from '../../shared/idempotency.ts';
import { MAX_SQS_DELAY_SECONDS } from '../../shared/ports/queue.ts';
import type { DataTable } from './data-table.ts';
import { ServiceFunction } from './service-function.ts';
import { VISIBILITY_PER_TIMEOUT, workerConcurrency, DEFAULT_ACCOUNT_CONCURRENCY } from './queue-capacity.ts';
import { WEBHOOK_WORKER_TIMEOUT, type WebhookQueue } from './webhook-queue.ts';

export interface WebhookPipelineProps {
  data: DataTable;
  transport: WebhookQueue;
  /** The webhooks endpoint group's function: it seals secrets and replays sealed answers, so it gets the ports and the key. */
  apiFunction?: ServiceFunction;
  serviceName: string;
  /** Upper bound of parallel attempt batches, so a burst cannot take the account's whole concurrency. @default the share of a 10-execution account (queue-capacity.ts) */
  workerConcurrency?: number;
  /** Also reserve workerConcurrency for the worker (only when the account's quota covers it). @default false */
  reserveConcurrency?: boolean;
}

/** How cdk-nag spells a value in a finding id: the value itself, or `<Pseudo::Parameter>` while a token. */
const nagName = (value: string, pseudo: string): string => (Token.isUnresolved(value) ? `<${pseudo}>` : value);

/**
 * What the account may do with the signing-secrets key: administer it, never use it. PutKeyPolicy
 * keeps the account able to change the policy (KMS refuses a policy that would lock it out);
 * CreateGrant is left out, since a grant could give Decrypt without this policy.
 */
export const KEY_ADMIN_ACTIONS = [
  'kms:DescribeKey', 'kms:GetKeyPolicy', 'kms:PutKeyPolicy', 'kms:GetKeyRotationStatus', 'kms:EnableKeyRotation', 'kms:DisableKeyRotation', 'kms:ListKeyRotations',
  'kms:RotateKeyOnDemand', 'kms:ListResourceTags', 'kms:TagResource', 'kms:UntagResource', 'kms:ListGrants', 'kms:RevokeGrant', 'kms:EnableKey', 'kms:DisableKey',
  'kms:UpdateKeyDescription', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion',
];

/** Per key, per use action, the roles that may use it (filled by allowKeyUse; read when the template is made). */
const keyUsers = new WeakMap<IKey, Map<string, IRole[]>>();

/**
 * Gives one role one use of the key. The role's own statement holds the use and its context
 * conditions; the key policy, which trusts no IAM policy for use (KEY_ADMIN_ACTIONS), delegates
 * each use action to the account's IAM only for the roles given it (`aws:PrincipalArn`). Both must
 * allow: another role's IAM policy cannot decrypt, and the role's grant stays the one that decides
 * (so the IAM check still sees which grant a call needs).
 */
export const allowKeyUse = (key: IKey, role: IRole, statement: PolicyStatement): void => {
  role.addToPrincipalPolicy(statement);
  let users = keyUsers.get(key);
  if (!users) keyUsers.set(key, (users = new Map()));
  for (const action of [(statement.toStatementJson() as { Action: string | string[] }).Action].flat()) {
    let roles = users.get(action);
    if (!roles) {
      const list = (roles = [] as IRole[]);
      users.set(action, list);
      key.addToResourcePolicy(
        new PolicyStatement({
          sid: `Use${action.replace('kms:', '')}`,
          principals: [new AccountRootPrincipal()],
          actions: [action],
          resources: ['*'],
          conditions: { ArnEquals: { 'aws:PrincipalArn': Lazy.list({ produce: () => list.map((r) => r.roleArn) }) } },
        }),
      );
    }
    if (!roles.includes(role)) roles.push(role);
  }
};

/** The context `functions/webhooks/endpoint-record.ts` seals each signing secret's data key under. */
const SECRET_SEAL_CONTEXT_KEYS = ['tenantId', 'endpointId', 'secretId'];

/**
 * The delivery pipeline of decisions 5: the table stream triggers the fan-out, which sends new
 * deliveries to the attempts queue; the worker consumes the queue, makes the attempt and puts the
 * next one back (SQS delay or Scheduler one-time schedule); the sweeper resends overdue
 * deliveries every minute. Also the KMS key that wraps the signing secrets' data keys.
 */
export class WebhookPipeline extends Construct {
  readonly key: Key;
  readonly fanOut: ServiceFunction;
  readonly worker: ServiceFunction;
  readonly sweeper: ServiceFunction;
  /** The three above by a readable name, for the errors and throttles alarms. */
  readonly functions: ReadonlyMap<string, IFunction>;
  /** Where the stream mapping reports batches it gave up on (record positions, not the records). */
  readonly streamFailures: Queue;
  /** Made here, sent to the alarm topic by the stack. */
  readonly attemptsBacklogAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookPipelineProps) {
    super(scope, id);
    const { data, transport } = props;
    const stack = Stack.of(this);

    this.key = new Key(this, 'SecretsKey', {
      description: 'Wraps the data keys of webhook signing secrets (envelope encryption)',
      enableKeyRotation: true,
      // Not CDK's default (the account's root may do kms:*, so any IAM policy in the account
      // could decrypt): the account administers the key, and may always change this policy (no
      // lockout), but only the roles given below use it (allowKeyUse).
      policy: new PolicyDocument({ statements: [new PolicyStatement({ sid: 'AccountAdministersTheKey', principals: [new AccountRootPrincipal()], actions: KEY_ADMIN_ACTIONS, resources: ['*'] })] }),
      // Without the key every stored signing secret is unreadable; a stack delete must not take it.
      // A failed first create has sealed nothing yet, so its rollback removes the key.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    const environment = {
      TABLE_NAME: data.table.tableName,
      POWERTOOLS_SERVICE_NAME: props.serviceName,
      ...this.portsEnvironment(transport),
    };

    // ---- fan-out: table stream -> deliveries -> attempts queue
    const fanOutGroup = streamConsumerGroups.find((group) => group.name === 'webhook-fan-out');
    if (!fanOutGroup) throw new Error('functions/stream-consumers.ts has no "webhook-fan-out" consumer');
    this.fanOut = new ServiceFunction(this, 'FanOut', { name: fanOutGroup.name, entry: fanOutGroup.entry, environment, timeout: Duration.seconds(60) });
    data.grantAccess(this.fanOut.function, fanOutGroup.table);
    this.allowSend(this.fanOut, transport.queue);

    // The finding is already acknowledged for X-Ray in ServiceFunction; this role has a second cause.
    Validations.of(this.fanOut.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Besides X-Ray, the stream mapping needs dynamodb:ListStreams, which has no resource-level permissions; stream reads are limited to the table stream.',
    });

    this.streamFailures = new Queue(this, 'StreamFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination of the stream mapping; a dead-letter queue behind it would only move the same notices again.',
    });

    this.fanOut.function.addEventSource(
      new DynamoEventSource(data.table, {
        // TRIM_HORIZON: outbox items written before the mapping exists (first deploy, a replaced
        // mapping) still fan out; the fan-out is idempotent, so a re-read makes no duplicate.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        // Bounded so one poison record cannot hold its shard until the stream's 24 h retention ends.
        retryAttempts: 10,
        onFailure: new SqsDlq(this.streamFailures),
        // Only what the handler acts on: new outbox events, deliveries a manual retry made
        // pending again, deleted destinations and new recoveries. Every other write (each attempt changes its
        // delivery) is not billed.
        filters: [
          FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(EVENT_ENTITY) } } } }),
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: {
              NewImage: { entity: { S: FilterRule.isEqual('delivery') }, state: { S: FilterRule.isEqual('pending') } },
              OldImage: { state: { S: FilterRule.or('dead', 'succeeded') } },
            },
          }),
          FilterCriteria.filter({ eventName: FilterRule.isEqual('REMOVE'), dynamodb: { OldImage: { entity: { S: FilterRule.isEqual(ENDPOINT_ENTITY) } } } }),
          FilterCriteria.filter({ eventName: FilterRule.isEqual('INSERT'), dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(RECOVERY_ENTITY) } } } }),
        ],
      }),
    );

    // ---- worker: attempts queue -> receiver, next attempt back on the queue or a schedule
    const concurrency = props.workerConcurrency ?? workerConcurrency(DEFAULT_ACCOUNT_CONCURRENCY).webhooks;
    if (!Number.isInteger(concurrency) || concurrency < 2) throw new Error('workerConcurrency must be an integer of at least 2 (the SQS mapping minimum)');
    const workerTimeout = WEBHOOK_WORKER_TIMEOUT;
    const visibility = (transport.queue.node.defaultChild as CfnQueue).visibilityTimeout ?? 30;
    if (visibility < VISIBILITY_PER_TIMEOUT * workerTimeout.toSeconds()) throw new Error(`the attempts queue's visibility timeout (${visibility} s) must be at least ${VISIBILITY_PER_TIMEOUT} times the worker's timeout`);
    this.worker = new ServiceFunction(this, 'Worker', { name: webhookWorker.name, entry: webhookWorker.entry, environment, timeout: workerTimeout });
    if (props.reserveConcurrency) (this.worker.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = concurrency;
    data.grantAccess(this.worker.function, webhookWorker.table);
    this.allowSend(this.worker, transport.queue);
    allowKeyUse(this.key, this.worker.role, this.keyUse(['kms:Decrypt'], SECRET_SEAL_CONTEXT_KEYS));
    this.worker.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule'],
        resources: [
          stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${transport.scheduleGroupName}/*`, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
        ],
      }),
    );
    this.worker.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [transport.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    );
    Validations.of(this.worker.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${nagName(stack.partition, 'AWS::Partition')}:scheduler:${nagName(stack.region, 'AWS::Region')}:${nagName(stack.account, 'AWS::AccountId')}:schedule/<${stack.getLogicalId(transport.scheduleGroup)}>/*]`,
      reason: 'Schedule names are made per delivery and attempt at run time; the wildcard is limited to the retry schedule group of this stack.',
    });
    this.worker.function.addEventSource(
      new SqsEventSource(transport.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        // The bound on parallel batches with or without a reservation; equal to it when there is
        // one, so the mapping never polls into throttles. Batches past it stay in the queue,
        // unreceived, so a backlog does not spend its receives (queue-capacity.ts).
        maxConcurrency: concurrency,
      }),
    );

    // ---- sweeper: every minute, overdue deliveries back on the queue
    this.sweeper = new ServiceFunction(this, 'Sweeper', {
      name: webhookSweeper.name,
      entry: webhookSweeper.entry,
      environment,
      // Finished before the next run starts.
      timeout: Duration.seconds(50),
    });
    data.grantAccess(this.sweeper.function, webhookSweeper.table);
    this.allowSend(this.sweeper, transport.queue);
    // A failed run is repeated by the next one a minute later; async retries would only overlap it.
    this.sweeper.function.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'SweepEveryMinute', {
      description: 'Resends webhook deliveries whose attempt is overdue',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.sweeper.function, { retryAttempts: 0 })],
    });

    this.functions = new Map([
      [fanOutGroup.name, this.fanOut.function],
      [webhookWorker.name, this.worker.function],
      [webhookSweeper.name, this.sweeper.function],
    ]);

    // ---- the webhooks API function seals new secrets
    if (props.apiFunction) {
      for (const [name, value] of Object.entries(this.portsEnvironment(transport))) props.apiFunction.function.addEnvironment(name, value);
      // New signing secrets are sealed; opening them is the worker's alone.
      allowKeyUse(this.key, props.apiFunction.role, this.keyUse(['kms:GenerateDataKey'], SECRET_SEAL_CONTEXT_KEYS));
      // The idempotency record of an answer that reveals a secret is sealed too, and a replay
      // opens it: only under the function's own operations, never another function's replays.
      const replays = sealedReplayOperations(props.apiFunction.name);
      if (replays.length > 0) allowKeyUse(this.key, props.apiFunction.role, this.keyUse(['kms:GenerateDataKey', 'kms:Decrypt'], [...RESPONSE_SEAL_CONTEXT_KEYS], replays));
    }

    // The worker re-queues with delays up to the SQS maximum; if SQS counts that wait in the
    // message's age, a bare 5-minute threshold would fire on every planned retry.
    this.attemptsBacklogAlarm = new Alarm(this, 'AttemptsBacklog', {
      alarmDescription: 'A webhook attempt has waited more than 5 minutes past its longest planned delay: the worker is not keeping up or not running.',
      metric: transport.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: MAX_SQS_DELAY_SECONDS + 300,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  /** What `ports()` in shared/ports/registry.ts reads; every function that calls it needs all of it. */
  portsEnvironment(transport: WebhookQueue): Record<string, string> {
    return {
      WEBHOOK_QUEUE_URL: transport.queue.queueUrl,
      WEBHOOK_QUEUE_ARN: transport.queue.queueArn,
      WEBHOOK_SCHEDULE_GROUP: transport.scheduleGroupName,
      WEBHOOK_SCHEDULER_ROLE_ARN: transport.schedulerRole.roleArn,
      WEBHOOK_KMS_KEY_ID: this.key.keyArn,
    };
  }

  /** Only SendMessage: grantSendMessages would add GetQueueAttributes and GetQueueUrl, unused here. */
  private allowSend(fn: ServiceFunction, queue: Queue): void {
    fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
  }

  /** Only under one seal context: exactly these keys, each one present (and operationId one of `operations`, when given). */
  private keyUse(actions: string[], contextKeys: readonly string[], operations?: string[]): PolicyStatement {
    return new PolicyStatement({
      actions,
      resources: [this.key.keyArn],
      conditions: {
        'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': contextKeys },
        Null: Object.fromEntries(contextKeys.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
        ...(operations ? { StringEquals: { 'kms:EncryptionContext:operationId': operations } } : {}),
      },
    });
  }
}
