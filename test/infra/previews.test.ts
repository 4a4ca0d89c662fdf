import type { IConstruct } from 'constructs';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewSweeper, previewWorker } from '../../functions/jobs.ts';
import { MAX_TIME_LIMIT_SECONDS } from '../../functions/routing/preview-schemas.ts';
import { leaseMarginSeconds } from '../../functions/routing/previews/lifecycle.ts';
import type { ServiceFunction } from '../../infra/constructs/service-function.ts';
import { actionsOf, sharedSynth, type Resource, type Statement, type Synthesized } from './synth.ts';
import { readsMetric } from './alarm-metrics.ts';

let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth({});
}, 600_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string => synth.logicalId(construct);
const resource = (construct: IConstruct): Resource => (synth.template.toJSON().Resources as Record<string, Resource>)[logicalId(construct)]!;
const previews = () => synth.stack.previews!;
const routing = (): ServiceFunction => synth.stack.functions.byGroup.get('routing')!;
const statementsOf = (fn: ServiceFunction): Statement[] => synth.statementsOf(logicalId(fn.role));
const queueArn = () => ({ 'Fn::GetAtt': [logicalId(previews().queue), 'Arn'] });
const mapping = () => synth.resources('AWS::Lambda::EventSourceMapping').find(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes(`"${logicalId(previews().queue)}"`))?.[1];

describe('the preview queue', () => {
  it('is encrypted, refuses plain HTTP, and dead-letters a preview after 5 receives into an encrypted queue kept 14 days', () => {
    const queue = resource(previews().queue).Properties;
    const dlq = resource(previews().deadLetterQueue).Properties;
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(dlq).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(previews().deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 });
    for (const q of [previews().queue, previews().deadLetterQueue]) {
      const policies = synth.resources('AWS::SQS::QueuePolicy').filter(([, p]) => JSON.stringify(p.Properties.Queues).includes(`"${logicalId(q)}"`));
      expect(policies, q.node.path).toHaveLength(1);
      expect(policies[0]![1].Properties.PolicyDocument.Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('hides a received preview for at least six times the worker’s timeout (AWS’s advice for SQS event sources)', () => {
    const worker = resource(previews().worker.function).Properties;
    expect(resource(previews().queue).Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * worker.Timeout);
  });

  it('alarms on dead letters and on a preview waiting more than 10 minutes, to the alarm topic', () => {
    const [topicId] = synth.resources('AWS::SNS::Topic')[0]!;
    const alarms = synth.resources('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const on = (queue: IConstruct, metric: string) => alarms.filter((a) => a.MetricName === metric && JSON.stringify(a.Dimensions).includes(`"${logicalId(queue)}"`));
    expect(on(previews().deadLetterQueue, 'ApproximateNumberOfMessagesVisible')).toEqual([
      expect.objectContaining({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [{ Ref: topicId }] }),
    ]);
    expect(on(previews().queue, 'ApproximateAgeOfOldestMessage')).toEqual([
      expect.objectContaining({ Threshold: 600, Statistic: 'Maximum', ComparisonOperator: 'GreaterThanThreshold', AlarmActions: [{ Ref: topicId }] }),
    ]);
    for (const fn of [previews().worker, previews().sweeper]) {
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarms.filter((a) => readsMetric(a, metric, logicalId(fn.function))), `${fn.name} ${metric}`).toHaveLength(1);
      }
    }
  });
});

describe('the preview worker', () => {
  it('has one full vCPU (1,769 MB), and stops by the time the longest lease ends', () => {
    const worker = resource(previews().worker.function);
    expect(worker.Metadata?.['delivery-ops:function']).toBe(previewWorker.name);
    expect(worker.Properties).toMatchObject({ MemorySize: 1769, Runtime: 'nodejs24.x', Architectures: ['arm64'] });
    // A claim lasts the time limit plus the lease margin from when the worker took it, after its
    // invocation began: at the longest limit, Lambda has stopped a worker before another may claim
    // its preview, and a minute of the timeout is left for loading, the matrices and the commit.
    expect(worker.Properties.Timeout).toBe(MAX_TIME_LIMIT_SECONDS + leaseMarginSeconds());
    expect(worker.Properties.Timeout - MAX_TIME_LIMIT_SECONDS).toBeGreaterThanOrEqual(60);
    expect(Object.keys(worker.Properties.Environment.Variables).sort()).toEqual(['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME', 'TABLE_NAME']);
  });

  it('takes one preview per invocation, two at most at once, and reserves nothing unless the quota is stated', () => {
    expect(mapping()?.Properties).toMatchObject({
      FunctionName: { Ref: logicalId(previews().worker.function) },
      BatchSize: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
    expect(resource(previews().worker.function).Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('is granted exactly its job entry’s table access, and only receives from the preview queue', () => {
    const statements = statementsOf(previews().worker);
    const table = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const declared = [...previewWorker.table.items, ...(previewWorker.table.scopedItems ?? []).flatMap((s) => s.items), ...(previewWorker.table.queries?.length ? ['Query'] : [])].map((a) => `dynamodb:${a}`);
    expect(new Set(table.flatMap(actionsOf))).toEqual(new Set(declared));
    // Never table-wide: each statement names the partitions it may touch (test/iam/roles.test.ts evaluates them).
    for (const s of table) expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']).toEqual(expect.arrayContaining([expect.any(String)]));
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.length).toBeGreaterThan(0);
    for (const s of sqs) {
      expect(s.Resource).toEqual(queueArn());
      expect(actionsOf(s)).not.toContain('sqs:SendMessage');
    }
  });
});

describe('the preview sweeper', () => {
  it('runs every minute without async retries, and ends before the next run', () => {
    const fnId = logicalId(previews().sweeper.function);
    expect(resource(previews().sweeper.function).Metadata?.['delivery-ops:function']).toBe(previewSweeper.name);
    synth.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: fnId }, MaximumRetryAttempts: 0 });
    expect(resource(previews().sweeper.function).Properties.Timeout).toBeLessThan(60);
  });

  it('is granted exactly its job entry’s table access', () => {
    const table = statementsOf(previews().sweeper).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    const declared = [...previewSweeper.table.items, ...(previewSweeper.table.scopedItems ?? []).flatMap((s) => s.items), ...(previewSweeper.table.queries?.length ? ['Query'] : [])].map((a) => `dynamodb:${a}`);
    expect(new Set(table.flatMap(actionsOf))).toEqual(new Set(declared));
    for (const s of table) expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']).toEqual(expect.arrayContaining([expect.any(String)]));
    for (const index of previewSweeper.table.queries ?? []) expect(JSON.stringify(table.map((s) => s.Resource))).toContain(`/index/${index}`);
  });
});

describe('sending to the preview queue', () => {
  it('gives the routing function and the sweeper PREVIEW_QUEUE_URL and sqs:SendMessage on the preview queue only', () => {
    for (const fn of [routing(), previews().sweeper]) {
      expect(resource(fn.function).Properties.Environment.Variables.PREVIEW_QUEUE_URL, fn.name).toEqual({ Ref: logicalId(previews().queue) });
      const sqs = statementsOf(fn).filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
      expect(sqs, fn.name).toEqual([expect.objectContaining({ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: queueArn() })]);
      expect(sqs[0]!.Condition, fn.name).toBeUndefined();
    }
  });

  it('lets no other role send to it or read it', () => {
    const allowed = new Set([routing(), previews().worker, previews().sweeper].map((fn) => logicalId(fn.role)));
    const touching = synth
      .resources('AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes(`"${logicalId(previews().queue)}"`))
      .flatMap(([, p]) => p.Properties.Roles as { Ref: string }[])
      .map((r) => r.Ref);
    expect(touching.length).toBeGreaterThan(0);
    for (const role of touching) expect(allowed, role).toContain(role);
  });
});

it('stays cdk-nag clean', () => {
  expect(synth.nagReport.success, JSON.stringify(synth.nagReport.violations, null, 1)).toBe(true);
});
