import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, it } from 'vitest';
import { THROTTLE_ALARM } from '../../infra/constructs/alarms.ts';
import { KEY_ADMIN_ACTIONS } from '../../infra/constructs/webhook-pipeline.ts';
import { ACCOUNT, TemplateNames } from '../iam/template-names.ts';
import { readsMetric } from './alarm-metrics.ts';
import { sharedSynth, type Resource, type Synthesized } from './synth.ts';

/**
 * Issue 33's lows in the template: the rotation function's invoke permission, the signing-secrets
 * key's policy, and throttle alarms that wait for a sustained rate.
 */
let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth();
}, 600_000);

describe('the origin secret’s rotation function', () => {
  it('may be invoked by Secrets Manager only for this secret, from this account', () => {
    const rotation = synth.logicalId(synth.stack.originSecret.rotation.function);
    const permissions = synth.resources('AWS::Lambda::Permission').filter(([, p]) => JSON.stringify(p.Properties.FunctionName).includes(`"${rotation}"`));
    expect(permissions.map(([, p]) => p.Properties)).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [rotation, 'Arn'] },
        Principal: 'secretsmanager.amazonaws.com',
        SourceAccount: { Ref: 'AWS::AccountId' },
        SourceArn: { Ref: synth.logicalId(synth.stack.originSecret.secret) },
      },
    ]);
  });
});

describe('the signing-secrets key policy', () => {
  const keyId = () => synth.logicalId(synth.stack.webhookPipeline.key);
  /** KMS's decision for a principal with these identity policies (KMS trusts them only where the key policy says so). */
  const decide = async (principal: string, action: string, context: Record<string, string | string[]> = {}, identityPolicies: unknown[] = []) => {
    const names = new TemplateNames(synth.template.toJSON() as never);
    const policy = names.resolve((synth.template.toJSON().Resources[keyId()] as Resource).Properties.KeyPolicy);
    const simulation: Simulation = {
      // aws:PrincipalArn is on every request (a role session's: its role), and the key policy names users by it.
      request: { principal, action, resource: { resource: names.getAtt(keyId(), 'Arn'), accountId: ACCOUNT }, contextVariables: { 'aws:PrincipalArn': principal.replace(':sts::', ':iam::').replace(':assumed-role/', ':role/').replace(/\/[^/]+$/, ''), ...context } },
      identityPolicies: identityPolicies.map((policy, i) => ({ name: `identity-${i}`, policy })) as never,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      resourcePolicy: policy,
    };
    // As test/iam/evaluate.ts: runSimulation validates, but drops context keys with a variable
    // part (kms:EncryptionContext:tenantId); the unsafe run decides with the context KMS sets.
    const validated = await runSimulation(simulation, {});
    if (validated.resultType === 'error') throw new Error(JSON.stringify(validated.errors));
    return runUnsafeSimulation({ ...simulation, resourcePolicy: { __validated: true, policyDocument: policy, metadata: { name: 'key-policy' }, errors: [] } } as never, {});
  };
  /** A function's role as the session KMS sees. */
  const roleArn = (construct: { role: { node: { defaultChild?: unknown } } }) =>
    new TemplateNames(synth.template.toJSON() as never).getAtt(synth.logicalId(construct.role as never), 'Arn').replace(':iam::', ':sts::').replace(':role/', ':assumed-role/') + '/session';

  it('lets the account’s administrators administer the key and change its policy, but not use it', async () => {
    // An administrator of the account: IAM lets it do anything.
    const admin = `arn:aws:sts::${ACCOUNT}:assumed-role/Administrator/someone`;
    const everything = [{ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }];
    expect(await decide(admin, 'kms:PutKeyPolicy', {}, everything)).toBe('Allowed');
    expect(await decide(admin, 'kms:ScheduleKeyDeletion', {}, everything)).toBe('Allowed');
    for (const use of ['kms:Decrypt', 'kms:GenerateDataKey', 'kms:Encrypt', 'kms:CreateGrant', 'kms:ReEncryptFrom']) expect(await decide(admin, use, {}, everything), use).not.toBe('Allowed');
    expect(KEY_ADMIN_ACTIONS.some((a) => /Decrypt|Encrypt|GenerateDataKey|CreateGrant/.test(a))).toBe(false);
  });

  it('lets a role that needs the key use it, and no other role, whatever its IAM policy says', async () => {
    const everything = [{ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }];
    const context = { 'kms:EncryptionContextKeys': ['tenantId', 'endpointId', 'secretId'], 'kms:EncryptionContext:tenantId': 't', 'kms:EncryptionContext:endpointId': 'e', 'kms:EncryptionContext:secretId': 's' };
    expect(await decide(roleArn(synth.stack.webhookPipeline.worker), 'kms:Decrypt', context, everything)).toBe('Allowed');
    // Its IAM policy still decides: without it, nothing (its context conditions live there: test/iam/roles.test.ts).
    expect(await decide(roleArn(synth.stack.webhookPipeline.worker), 'kms:Decrypt', context, [])).not.toBe('Allowed');
    for (const other of [synth.stack.webhookPipeline.sweeper, synth.stack.webhookPipeline.fanOut, synth.stack.functions.byGroup.get('orders')!]) {
      expect(await decide(roleArn(other), 'kms:Decrypt', context, everything), other.name).not.toBe('Allowed');
    }
    // The worker opens secrets; sealing new ones is the webhooks function's.
    expect(await decide(roleArn(synth.stack.webhookPipeline.worker), 'kms:GenerateDataKey', context, everything)).not.toBe('Allowed');
  });

  it('names as users of each action exactly the roles whose own policies use the key for it', () => {
    const key = synth.template.toJSON().Resources[keyId()] as Resource;
    const named = (action: string) =>
      new Set(
        (key.Properties.KeyPolicy.Statement as { Action: string; Condition?: { ArnEquals?: Record<string, unknown[]> } }[])
          .filter((s) => s.Action === action)
          .flatMap((s) => s.Condition!.ArnEquals!['aws:PrincipalArn']!.map((arn) => JSON.stringify(arn))),
      );
    const granted = (action: string) =>
      new Set(
        synth
          .resources('AWS::IAM::Policy')
          .filter(([, p]) => (p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).some((st) => [st.Action].flat().includes(action) && JSON.stringify(st.Resource).includes(`"${keyId()}"`)))
          .flatMap(([, p]) => (p.Properties.Roles as { Ref: string }[]).map((r) => JSON.stringify({ 'Fn::GetAtt': [r.Ref, 'Arn'] }))),
      );
    for (const action of ['kms:Decrypt', 'kms:GenerateDataKey']) {
      expect(granted(action).size, action).toBeGreaterThanOrEqual(2);
      expect(named(action), action).toEqual(granted(action));
    }
  });
});

describe('throttle alarms', () => {
  const throttleAlarms = () => synth.resources('AWS::CloudWatch::Alarm').filter(([, a]) => readsMetric(a.Properties, 'Throttles'));
  /** The alarm's state after these minutes of [throttles, invocations], as CloudWatch evaluates its expression. */
  const state = (alarm: Record<string, any>, minutes: [number, number][]): 'ALARM' | 'OK' => {
    const expression = (alarm.Metrics as { Expression?: string }[]).find((m) => m.Expression)!.Expression!;
    const evaluate = new Function('IF', 'throttles', 'invocations', `return ${expression};`) as (f: unknown, t: number, i: number) => number;
    const values = minutes.map(([t, i]) => evaluate((c: boolean, a: number, b: number) => (c ? a : b), t, i));
    const last = values.slice(-alarm.EvaluationPeriods as number);
    const breaching = last.filter((v) => v >= alarm.Threshold).length;
    return last.length >= alarm.EvaluationPeriods && breaching >= alarm.DatapointsToAlarm ? 'ALARM' : 'OK';
  };

  it('exist for every function and read throttles against invocations minute by minute', () => {
    const alarms = throttleAlarms();
    expect(alarms).toHaveLength(synth.resources('AWS::Lambda::Function').length);
    for (const [id, { Properties: a }] of alarms) {
      expect(readsMetric(a, 'Invocations'), id).toBe(true);
      for (const m of a.Metrics as { MetricStat?: { Period: number } }[]) if (m.MetricStat) expect(m.MetricStat.Period, id).toBe(60);
      expect([a.EvaluationPeriods, a.DatapointsToAlarm, a.Threshold], id).toEqual([THROTTLE_ALARM.minutes, THROTTLE_ALARM.minutes, THROTTLE_ALARM.percent]);
    }
  });

  it('stay quiet on one throttle, or a short burst, and fire when throttling goes on', () => {
    const [, { Properties: alarm }] = throttleAlarms()[0]!;
    const quiet: [number, number] = [0, 100];
    expect(state(alarm, [quiet, quiet, [1, 0], quiet, quiet, quiet])).toBe('OK');
    expect(state(alarm, [quiet, [50, 50], [50, 50], [50, 50], [50, 50], quiet])).toBe('OK');
    expect(state(alarm, [quiet, [50, 50], [50, 50], [50, 50], [50, 50], [50, 50]])).toBe('ALARM');
    // An every-minute job throttled on each run never runs: that is sustained too.
    expect(state(alarm, [[1, 0], [1, 0], [1, 0], [1, 0], [1, 0]])).toBe('ALARM');
  });
});
