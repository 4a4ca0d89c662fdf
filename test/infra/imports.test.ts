import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, sharedSynth, type Resource, type Statement, type Synthesized } from './synth.ts';

let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth({});
}, 180_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string => synth.logicalId(construct);
const resource = (construct: IConstruct): Resource => (synth.template.toJSON().Resources as Record<string, Resource>)[logicalId(construct)]!;
const statementsOf = (roleId: string): Statement[] => synth.statementsOf(roleId);
const actions = actionsOf;

describe('record imports in the cloud', () => {
  it('has a page queue with a dead-letter queue and a visibility timeout above the worker’s timeout', () => {
    const imports = synth.stack.imports!;
    const queue = resource(imports.queue).Properties;
    expect(queue.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(imports.deadLetterQueue), 'Arn'] }, maxReceiveCount: 5 });
    const worker = resource(imports.worker.function).Properties;
    expect(queue.VisibilityTimeout).toBeGreaterThan(worker.Timeout);
    const mapping = synth.resources('AWS::Lambda::EventSourceMapping').find(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes(logicalId(imports.queue)));
    expect(mapping?.[1].Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(worker.Environment.Variables.IMPORT_QUEUE_URL).toEqual({ Ref: logicalId(imports.queue) });
  });

  it('imports every active connection hourly', () => {
    const imports = synth.stack.imports!;
    const rules = synth.resources('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets).includes(logicalId(imports.scheduler.function)));
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(1 hour)']);
    const statements = statementsOf(logicalId(imports.scheduler.role));
    // Active connections come from a sparse index partition: the schedule may query gsi2, never Scan.
    expect(statements.some((s) => actions(s).includes('dynamodb:Scan'))).toBe(false);
    expect(statements.filter((s) => actions(s).includes('dynamodb:Query')).map((s) => JSON.stringify(s.Resource))).toEqual([expect.stringContaining('/index/gsi2')]);
    // It only queues: it never opens a token or calls the provider.
    expect(statements.some((s) => actions(s).some((a) => a.startsWith('kms:') || a.startsWith('secretsmanager:')))).toBe(false);
  });

  it('lets the worker open connection tokens only under their sealing context, and send only to its own queue', () => {
    const imports = synth.stack.imports!;
    const statements = statementsOf(logicalId(imports.worker.role));
    const kms = statements.filter((s) => actions(s).some((a) => a.startsWith('kms:')));
    expect(kms.length).toBeGreaterThan(0);
    for (const s of kms) expect(s.Condition!['ForAllValues:StringEquals']['kms:EncryptionContextKeys']).toBeDefined();
    expect(kms.map((s) => s.Condition!['ForAllValues:StringEquals']['kms:EncryptionContextKeys'])).toContainEqual(['tenantId', 'connectionId']);
    const sqs = statements.filter((s) => actions(s).some((a) => a.startsWith('sqs:') && a !== 'sqs:ReceiveMessage' && a !== 'sqs:DeleteMessage' && a !== 'sqs:ChangeMessageVisibility' && a !== 'sqs:GetQueueAttributes' && a !== 'sqs:GetQueueUrl'));
    expect(sqs).toEqual([expect.objectContaining({ Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [logicalId(imports.queue), 'Arn'] } })]);
  });

  it('stays cdk-nag clean', () => {
    expect(synth.nagReport.success, JSON.stringify(synth.nagReport.violations, null, 1)).toBe(true);
  });
});
