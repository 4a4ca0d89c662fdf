import { Match } from 'aws-cdk-lib/assertions';
import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOpsStack } from '../../infra/stack.ts';
import { RESPONSE_SEAL_CONTEXT_KEYS } from '../../shared/idempotency.ts';
import { sharedSynth, type Resource, type Synthesized } from './synth.ts';
import { readsMetric } from './alarm-metrics.ts';

// One synthesis per run (without bundling), shared with the other infra files: synth.ts, sharedSynth.
let synth: Synthesized;
let stack: DeliveryOpsStack;

beforeAll(async () => {
  synth = await sharedSynth();
  stack = synth.stack;
}, 180_000);

afterAll(() => synth?.dispose());

/** Of an L1 resource, or of an L2 construct's default child. */
const logicalId = (construct: IConstruct): string => stack.resolve(stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string;
const resource = (id: string): Resource => (synth.template.toJSON().Resources as Record<string, Resource>)[id]!;
const mappingsOf = (fnId: string) => synth.resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === fnId);
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any> };
const statementsOf = (roleId: string): Statement[] =>
  synth
    .resources('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
const allowing = (roleId: string, action: string) => statementsOf(roleId).filter((s) => [s.Action].flat().includes(action));
const roleOf = (fn: { role: IConstruct }) => logicalId(fn.role);

/** Exactly these context keys, each present. */
const contextCondition = (keys: string[]) => ({
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': keys },
  Null: Object.fromEntries(keys.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
});
/** What endpoint-record.ts seals a signing secret under. */
const sealContext = contextCondition(['tenantId', 'endpointId', 'secretId']);
/** What shared/idempotency.ts seals a secret-revealing answer under, for the webhooks function's own such operations. */
const responseContext = { ...contextCondition([...RESPONSE_SEAL_CONTEXT_KEYS]), StringEquals: { 'kms:EncryptionContext:operationId': ['createWebhookEndpoint', 'rotateWebhookSecret'] } };
const portsEnv = ['WEBHOOK_QUEUE_URL', 'WEBHOOK_QUEUE_ARN', 'WEBHOOK_SCHEDULE_GROUP', 'WEBHOOK_SCHEDULER_ROLE_ARN', 'WEBHOOK_KMS_KEY_ID'];

describe('secrets key', () => {
  it('rotates and is kept when the stack goes (not after a failed create, which sealed nothing)', () => {
    const key = resource(logicalId(stack.webhookPipeline.key));
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('RetainExceptOnCreate');
  });

  it('lets the webhooks API function seal secrets, seal and replay answers that reveal one, and open no stored secret', () => {
    const role = roleOf(stack.functions.byGroup.get('webhooks')!);
    expect(allowing(role, 'kms:GenerateDataKey')).toEqual([
      expect.objectContaining({ Effect: 'Allow', Condition: sealContext }),
      expect.objectContaining({ Effect: 'Allow', Condition: responseContext }),
    ]);
    expect(allowing(role, 'kms:Decrypt')).toEqual([expect.objectContaining({ Effect: 'Allow', Condition: responseContext })]);
    expect(statementsOf(role).some((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')))).toBe(false);
  });

  it('lets the worker Decrypt under the seal context, and no other function use the key', () => {
    const { worker, fanOut, sweeper } = stack.webhookPipeline;
    expect(allowing(roleOf(worker), 'kms:Decrypt')).toEqual([expect.objectContaining({ Condition: sealContext })]);
    for (const fn of [fanOut, sweeper, ...['assistant', 'fleet', 'meta'].map((g) => stack.functions.byGroup.get(g)!)]) {
      expect(JSON.stringify(statementsOf(roleOf(fn)))).not.toContain('kms:');
    }
  });
});

describe('fan-out', () => {
  it('reads the table stream from TRIM_HORIZON, 100 at a time, bisecting and reporting failed items', () => {
    const { fanOut, streamFailures } = stack.webhookPipeline;
    const mappings = mappingsOf(logicalId(fanOut.function));
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.data.table), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: expect.any(Number),
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(streamFailures), 'Arn'] } } },
    });
    expect(mappings[0]![1].Properties.MaximumRetryAttempts).toBeGreaterThan(0);
  });

  it('is invoked only for outbox event INSERTs, deliveries a manual retry made pending, deleted destinations and new recoveries', () => {
    const [[, mapping]] = mappingsOf(logicalId(stack.webhookPipeline.fanOut.function)) as [[string, Resource]];
    const patterns = mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['event'] } } } },
      {
        eventName: ['MODIFY'],
        dynamodb: { NewImage: { entity: { S: ['delivery'] }, state: { S: ['pending'] } }, OldImage: { state: { S: ['dead', 'succeeded'] } } },
      },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { entity: { S: ['webhookEndpoint'] } } } },
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['webhookRecovery'] } } } },
    ]);
  });

  it('may read the stream, use table items and send to the attempts queue and its failure queue only', () => {
    const role = roleOf(stack.webhookPipeline.fanOut);
    expect(allowing(role, 'dynamodb:GetRecords')).toHaveLength(1);
    expect(allowing(role, 'dynamodb:PutItem')).toHaveLength(1);
    const sendTo = allowing(role, 'sqs:SendMessage').map((s) => (s.Resource as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]).sort();
    expect(sendTo).toEqual([logicalId(stack.webhooks.queue), logicalId(stack.webhookPipeline.streamFailures)].sort());
    // A deleted destination's pending deliveries are the worker's, page by page (issue 29): the
    // fan-out neither reads a destination's history (gsi1) nor updates deliveries.
    expect(allowing(role, 'dynamodb:UpdateItem')).toHaveLength(0);
    expect(JSON.stringify(allowing(role, 'dynamodb:Query'))).not.toContain('gsi1');
  });
});

describe('worker', () => {
  it('takes 10 attempts per batch from the queue, reports failed items and runs at most 2 batches at once on a new account (test/infra/queue-capacity.test.ts)', () => {
    const { worker } = stack.webhookPipeline;
    const fnId = logicalId(worker.function);
    const mappings = mappingsOf(fnId);
    expect(mappings).toHaveLength(1);
    expect(mappings[0]![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.webhooks.queue), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const fn = resource(fnId).Properties;
    // Reserved only when the account's quota is stated (test/infra/first-deploy.test.ts); the mapping bounds it either way.
    expect(fn.ReservedConcurrentExecutions).toBeUndefined();
    expect(mappings[0]![1].Properties.ScalingConfig.MaximumConcurrency).toBe(2);
    expect(fn.VpcConfig).toBeUndefined();
  });

  it('times out after the 10 s attempt limit, and the queue hides a batch six times as long (AWS’s advice)', () => {
    const fn = resource(logicalId(stack.webhookPipeline.worker.function)).Properties;
    const queue = resource(logicalId(stack.webhooks.queue)).Properties;
    expect(fn.Timeout).toBeGreaterThan(10);
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Timeout);
  });

  it('may create schedules only in the retry group and pass only the scheduler role, only to Scheduler', () => {
    const role = roleOf(stack.webhookPipeline.worker);
    const groupId = logicalId(stack.webhooks.scheduleGroup);
    expect(allowing(role, 'scheduler:CreateSchedule')).toEqual([
      expect.objectContaining({
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:us-east-1:', { Ref: 'AWS::AccountId' }, ':schedule/', { Ref: groupId }, '/*']],
        },
      }),
    ]);
    expect(allowing(role, 'iam:PassRole')).toEqual([
      expect.objectContaining({
        Resource: { 'Fn::GetAtt': [logicalId(stack.webhooks.schedulerRole), 'Arn'] },
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    ]);
    const sendTo = allowing(role, 'sqs:SendMessage').map((s) => s.Resource);
    expect(sendTo).toEqual([{ 'Fn::GetAtt': [logicalId(stack.webhooks.queue), 'Arn'] }]);
  });
});

describe('sweeper', () => {
  it('runs every minute without async retries', () => {
    const fnId = logicalId(stack.webhookPipeline.sweeper.function);
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })],
    });
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: fnId }, MaximumRetryAttempts: 0 });
    expect(resource(fnId).Properties.Timeout).toBeLessThan(60);
  });

  it('may query the due index and send to the attempts queue', () => {
    const role = roleOf(stack.webhookPipeline.sweeper);
    const [query] = allowing(role, 'dynamodb:Query');
    expect(JSON.stringify(query!.Resource)).toContain('/index/gsi2');
    expect(allowing(role, 'sqs:SendMessage')).toHaveLength(1);
  });
});

describe('environment', () => {
  it('gives every function that builds the webhook ports all of their settings', () => {
    const { fanOut, worker, sweeper } = stack.webhookPipeline;
    for (const fn of [fanOut, worker, sweeper, stack.functions.byGroup.get('webhooks')!]) {
      const variables = resource(logicalId(fn.function)).Properties.Environment.Variables;
      expect(Object.keys(variables), fn.node.path).toEqual(expect.arrayContaining([...portsEnv, 'TABLE_NAME']));
      expect(variables.WEBHOOK_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [logicalId(stack.webhookPipeline.key), 'Arn'] });
    }
  });

  it('never lets a function allow private webhook destinations', () => {
    const functions = synth.resources('AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [id, fn] of functions) {
      expect(Object.keys(fn.Properties.Environment?.Variables ?? {}), id).not.toContain('WEBHOOK_ALLOW_PRIVATE_DESTINATIONS');
    }
  });
});

describe('alarms', () => {
  const alarms = () => synth.resources('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const queueAlarm = (queueId: string, metric: string) =>
    alarms().filter((a) => a.MetricName === metric && JSON.stringify(a.Dimensions).includes(`"${queueId}"`));

  it('watches both dead-letter queues, the attempts backlog and the worker, on the alarm topic', () => {
    const topic = { Ref: logicalId(stack.alarms.topic) };
    for (const queue of [stack.webhooks.deadLetterQueue, stack.webhookPipeline.streamFailures]) {
      expect(queueAlarm(logicalId(queue), 'ApproximateNumberOfMessagesVisible')).toEqual([
        expect.objectContaining({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [topic] }),
      ]);
    }
    const [backlog] = queueAlarm(logicalId(stack.webhooks.queue), 'ApproximateAgeOfOldestMessage');
    expect(backlog).toMatchObject({ Statistic: 'Maximum', ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [topic] });
    // Five minutes past the longest delay the worker may give a message on the queue (15 min).
    expect(backlog!.Threshold).toBe(900 + 300);
    const workerId = logicalId(stack.webhookPipeline.worker.function);
    for (const metric of ['Errors', 'Throttles']) {
      expect(alarms().filter((a) => readsMetric(a, metric, workerId)), metric).toHaveLength(1);
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is not acknowledged', () => {
    const findings = synth.nagReport.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
    expect(findings).toEqual([]);
  });

  it('acknowledges only the schedule wildcard and the stream failure queue in the pipeline, with reasons', () => {
    const rules = Object.entries(synth.template.toJSON().Resources as Record<string, Resource>)
      .filter(([id]) => id.startsWith('WebhookPipeline'))
      .flatMap(([, r]) => (r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[]);
    for (const rule of rules) expect(rule.reason.trim().length, rule.id).toBeGreaterThanOrEqual(20);
    expect([...new Set(rules.map((r) => r.id))].sort()).toEqual(
      [
        'AwsSolutions-IAM5[Resource::*]',
        `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:us-east-1:<AWS::AccountId>:schedule/<${logicalId(stack.webhooks.scheduleGroup)}>/*]`,
        'AwsSolutions-SQS3',
      ].sort(),
    );
  });
});
