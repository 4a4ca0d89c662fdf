import { readFileSync } from 'node:fs';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMON_RULES_BLOCKED, COMMON_RULES_COUNTED } from '../../infra/constructs/edge.ts';
import { DEFAULT_TRACKING_CONCURRENCY, DeliveryOpsStack, PLACEHOLDER_OIDC_AUDIENCE, PLACEHOLDER_OIDC_ISSUER, UNRESERVED_CONCURRENCY_MINIMUM } from '../../infra/stack.ts';
import { ACCOUNT, TemplateNames } from '../iam/template-names.ts';
import type { Resource } from './synth.ts';
import { shapeOf, unapplicableChanges, type TableShape } from './table-changes.ts';
import { templateApp } from './test-app.ts';

/**
 * What decides whether the first `cdk deploy` on a new account goes through, and whether its
 * alarms reach anyone: none of it shows in `cdk synth`. Synthesized without bundling (the
 * functions' code plays no part here), so each stack takes seconds.
 */
type Json = Record<string, any>;
const synth = (context: Record<string, unknown> = {}) => {
  const app = templateApp(context);
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource>; Parameters?: Json; Rules?: Json };
  const resources = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
  // The two us-east-1 stacks beside it: the web ACL's and the access-log delivery's.
  const edge = [stack.edgeAcl, stack.edgeLogs].map((s) => Template.fromStack(s).toJSON() as { Resources: Record<string, Resource> });
  const edgeResources = (type: string) => edge.flatMap((t) => Object.entries(t.Resources).filter(([, r]) => r.Type === type));
  const idOf = (construct: { node: { defaultChild?: unknown } }) => stack.resolve(stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string;
  return { stack, template, resources, edge, edgeResources, idOf };
};
type Synth = ReturnType<typeof synth>;

const configured = { oidcIssuer: 'https://login.example.cl/', oidcAudience: 'delivery-ops' };
let plain: Synth;
beforeAll(() => {
  plain = synth();
}, 120_000);

describe('reserved concurrency (a new account often has a quota of 10)', () => {
  const reserved = (s: Synth) =>
    Object.fromEntries(s.resources('AWS::Lambda::Function').flatMap(([id, r]) => (r.Properties.ReservedConcurrentExecutions === undefined ? [] : [[id, r.Properties.ReservedConcurrentExecutions]])));
  const needed = DEFAULT_TRACKING_CONCURRENCY + 20 + 5 + 2 + UNRESERVED_CONCURRENCY_MINIMUM;

  it('reserves nothing unless the quota is stated, and the queues still bound the workers', () => {
    expect(reserved(plain)).toEqual({});
    const { webhookPipeline, imports, previews } = plain.stack;
    const maximum = (fnId: string) => plain.resources('AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties.FunctionName.Ref === fnId)![1].Properties.ScalingConfig.MaximumConcurrency;
    // A new account's 10 executions assumed: 2 each (test/infra/queue-capacity.test.ts).
    expect(maximum(plain.idOf(webhookPipeline.worker.function))).toBe(2);
    expect(maximum(plain.idOf(imports!.worker.function))).toBe(2);
    expect(maximum(plain.idOf(previews!.worker.function))).toBe(2);
  });

  it('reserves 50, 20, 5 and 2 when the stated quota leaves Lambda its 100 unreserved', () => {
    expect(needed).toBe(177);
    const s = synth({ accountConcurrency: String(needed) });
    expect(reserved(s)).toEqual({
      [s.idOf(s.stack.functions.functionFor('tracking'))]: DEFAULT_TRACKING_CONCURRENCY,
      [s.idOf(s.stack.webhookPipeline.worker.function)]: 20,
      [s.idOf(s.stack.imports!.worker.function)]: 5,
      [s.idOf(s.stack.previews!.worker.function)]: 2,
    });
  });

  it('reserves nothing when the stated quota is too small for the reservations, and says so', () => {
    const s = synth({ accountConcurrency: String(needed - 1) });
    expect(reserved(s)).toEqual({});
    expect(s.stack.concurrencyReserved).toBe(false);
    for (const value of ['0', 'ten', '2.5']) expect(() => synth({ accountConcurrency: value }), value).toThrow(/accountConcurrency/);
  });
});

describe('alarms reach a person', () => {
  const topicPolicy = (s: Synth) => {
    const names = new TemplateNames(s.template);
    const [[topicId]] = s.resources('AWS::SNS::Topic');
    const [[, policy]] = s.resources('AWS::SNS::TopicPolicy');
    return { topicArn: names.ref(topicId!), document: names.resolve(policy!.Properties.PolicyDocument) };
  };
  /** The topic policy's decision for one publisher, evaluated offline as SNS would. */
  const decide = async (principal: string, context: Record<string, string>) => {
    const { topicArn, document } = topicPolicy(plain);
    const result = await runSimulation(
      {
        request: { principal, action: 'sns:Publish', resource: { resource: topicArn, accountId: ACCOUNT }, contextVariables: { 'aws:SecureTransport': 'true', ...context } },
        identityPolicies: [],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        resourcePolicy: document,
      },
      {},
    );
    if (result.resultType === 'error') throw new Error(JSON.stringify(result.errors));
    return result.overallResult;
  };
  const alarmArn = (account: string, name: string) => `arn:aws:cloudwatch:us-east-1:${account}:alarm:${name}`;
  const ownAlarm = alarmArn(ACCOUNT, 'DeliveryOps-AlarmsApi5xx1A2B3C4D-9ZYXWVUT');

  it('lets CloudWatch publish the alarms of this stack', async () => {
    expect(await decide('cloudwatch.amazonaws.com', { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': ownAlarm })).toBe('Allowed');
  });

  it('refuses another account, another stack, another service and plain HTTP', async () => {
    const other = '210987654321';
    expect(await decide('cloudwatch.amazonaws.com', { 'aws:SourceAccount': other, 'aws:SourceArn': alarmArn(other, 'DeliveryOps-AlarmsApi5xx-1') })).not.toBe('Allowed');
    expect(await decide('cloudwatch.amazonaws.com', { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': alarmArn(ACCOUNT, 'Billing-HighSpend-1') })).not.toBe('Allowed');
    expect(await decide('events.amazonaws.com', { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': `arn:aws:events:us-east-1:${ACCOUNT}:rule/DeliveryOps-x` })).not.toBe('Allowed');
    expect(await decide('cloudwatch.amazonaws.com', { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': ownAlarm, 'aws:SecureTransport': 'false' })).not.toBe('Allowed');
  });

  it('sends every alarm to that topic, and subscribes the alarm e-mail when given', () => {
    const [[topicId]] = plain.resources('AWS::SNS::Topic');
    const alarms = plain.resources('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(40);
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
    // A fixed alarm name would not match the policy's `<stack>-*` (and would block a replacement).
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmName, id).toBeUndefined();
    const withEmail = synth({ alarmEmail: 'ops@example.cl' });
    expect(withEmail.resources('AWS::SNS::Subscription').map(([, r]) => r.Properties)).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.cl' })]);
  });
});

describe('a failed first deploy leaves nothing behind', () => {
  it('keeps the table, the signing-secrets key and the access-log bucket on update and delete, but not after a failed create', () => {
    const kept = Object.entries(plain.template.Resources).filter(([, r]) => r.DeletionPolicy !== undefined && r.DeletionPolicy !== 'Delete');
    expect(kept.map(([, r]) => r.Type).sort()).toEqual(['AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::S3::Bucket']);
    for (const [id, r] of kept) {
      expect(r.DeletionPolicy, id).toBe('RetainExceptOnCreate');
      expect((r as Json).UpdateReplacePolicy, id).toBe('Retain');
    }
  });

  it('protects the table from deletion, except when the first deploy turns it off', () => {
    const [[, table]] = plain.resources('AWS::DynamoDB::Table');
    expect(table!.Properties.DeletionProtectionEnabled).toBe(true);
    // With protection on, a failed create's rollback could not delete the table and would keep it.
    const [[, first]] = synth({ tableDeletionProtection: 'false' }).resources('AWS::DynamoDB::Table');
    expect(first!.Properties.DeletionProtectionEnabled).toBe(false);
  });
});

describe('no placeholder issuer in the cloud', () => {
  /** CloudFormation's rule functions, with each parameter at the value the CDK CLI sends for it. */
  const holds = (condition: Json, parameters: Json): boolean => {
    const value = (v: any): any => (v && typeof v === 'object' && 'Ref' in v ? parameters[v.Ref].Default : v);
    const [fn, args] = Object.entries(condition)[0]!;
    switch (fn) {
      case 'Fn::Not':
        return !holds(args[0], parameters);
      case 'Fn::And':
        return args.every((c: Json) => holds(c, parameters));
      case 'Fn::Or':
        return args.some((c: Json) => holds(c, parameters));
      case 'Fn::Equals':
        return value(args[0]) === value(args[1]);
      case 'Fn::Contains':
        return (args[0] as string[]).includes(value(args[1]));
      default:
        throw new Error(`rule function ${fn} not evaluated here`);
    }
  };
  /** The rules' refusals for a deploy of this template (the bootstrap version check aside). */
  const refusals = (s: Synth): string[] =>
    Object.entries(s.template.Rules ?? {})
      .filter(([name]) => name !== 'CheckBootstrapVersion')
      .flatMap(([, rule]) => (rule.Assertions as Json[]).filter((a) => !holds(a.Assert, s.template.Parameters ?? {})).map((a) => a.AssertDescription as string));

  it('synthesizes with no settings, and CloudFormation refuses that template before creating anything', () => {
    const env = plain.resources('AWS::Lambda::Function').find(([, r]) => r.Properties.Environment?.Variables?.OIDC_ISSUER)![1].Properties.Environment.Variables;
    const parameters = plain.template.Parameters!;
    expect([parameters[env.OIDC_ISSUER.Ref].Default, parameters[env.OIDC_AUDIENCE.Ref].Default]).toEqual([PLACEHOLDER_OIDC_ISSUER, PLACEHOLDER_OIDC_AUDIENCE]);
    expect(refusals(plain)).toEqual([expect.stringContaining('oidcIssuer'), expect.stringContaining('oidcAudience')]);
    expect(refusals(synth({ oidcIssuer: configured.oidcIssuer }))).toEqual([expect.stringContaining('oidcAudience')]);
  });

  it('gives every API function the issuer and audience parameters the rule checks, not copies of their values', () => {
    const good = synth(configured);
    const checked = JSON.stringify(Object.entries(good.template.Rules!).filter(([name]) => name !== 'CheckBootstrapVersion'));
    const fns = good.resources('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.OIDC_ISSUER);
    expect(fns.length).toBeGreaterThan(1);
    for (const [id, fn] of fns) {
      const { OIDC_ISSUER: issuer, OIDC_AUDIENCE: audience } = fn.Properties.Environment.Variables;
      expect([issuer, audience], id).toEqual([{ Ref: expect.stringMatching(/^OidcIssuer/) }, { Ref: expect.stringMatching(/^OidcAudience/) }]);
      expect(checked, id).toContain(JSON.stringify(issuer));
      expect(checked, id).toContain(JSON.stringify(audience));
      expect(good.template.Parameters![issuer.Ref].Default).toBe(configured.oidcIssuer);
    }
  });

  it('accepts real settings, and a later deploy that forgets them is refused again', () => {
    const good = synth(configured);
    expect(refusals(good)).toEqual([]);
    // The CLI sends a parameter it already knows as UsePreviousValue; a value of its own makes a
    // new parameter (its logical id carries the value's digest), so the placeholder's default counts.
    expect(Object.keys(good.template.Parameters!).filter((p) => p.startsWith('Oidc'))).not.toEqual(
      Object.keys(plain.template.Parameters!).filter((p) => p.startsWith('Oidc')),
    );
  });
});

describe('WAF refusals', () => {
  const webAcl = () => plain.edgeResources('AWS::WAFv2::WebACL')[0]![1].Properties;

  it('only counts the common rules that would refuse legitimate callers, each with a reason', () => {
    const group = webAcl().Rules.find((r: Json) => r.Statement.ManagedRuleGroupStatement?.Name === 'AWSManagedRulesCommonRuleSet');
    const counted = group.Statement.ManagedRuleGroupStatement.RuleActionOverrides.filter((o: Json) => 'Count' in o.ActionToUse).map((o: Json) => o.Name);
    expect(counted.sort()).toEqual(['GenericRFI_BODY', 'GenericRFI_QUERYARGUMENTS', 'NoUserAgent_HEADER', 'SizeRestrictions_BODY', 'SizeRestrictions_QUERYSTRING']);
    for (const name of counted) expect(COMMON_RULES_COUNTED[name]!.length, name).toBeGreaterThan(30);
  });

  it('answers every refusal with a problem document (the tracking page with its HTML page)', () => {
    const acl = webAcl();
    const blocks: Json[] = [];
    for (const rule of acl.Rules) {
      if (rule.Action?.Block) blocks.push(rule.Action.Block);
      for (const o of rule.Statement.ManagedRuleGroupStatement?.RuleActionOverrides ?? []) if (o.ActionToUse.Block) blocks.push(o.ActionToUse.Block);
      // A managed group left to its own actions would answer WAF's bare 403.
      if (rule.Statement.ManagedRuleGroupStatement) expect(rule.OverrideAction).toEqual({ None: {} });
    }
    const group = acl.Rules.find((r: Json) => r.Statement.ManagedRuleGroupStatement)!.Statement.ManagedRuleGroupStatement;
    expect(group.RuleActionOverrides.map((o: Json) => o.Name).sort()).toEqual([...Object.keys(COMMON_RULES_COUNTED), ...COMMON_RULES_BLOCKED].sort());
    expect(blocks.length).toBe(COMMON_RULES_BLOCKED.length + 2);
    for (const block of blocks) {
      const body = acl.CustomResponseBodies[block.CustomResponse.CustomResponseBodyKey];
      if (body.ContentType === 'TEXT_HTML') continue;
      expect(body.ContentType).toBe('APPLICATION_JSON');
      const problem = JSON.parse(body.Content);
      expect(problem).toMatchObject({ type: expect.stringMatching(/^urn:delivery-ops:problem:/), status: block.CustomResponse.ResponseCode, code: expect.any(String), title: expect.any(String) });
    }
    const pages = blocks.filter((b) => acl.CustomResponseBodies[b.CustomResponse.CustomResponseBodyKey].ContentType === 'TEXT_HTML');
    expect(pages).toHaveLength(1);
  });
});

describe('changes that break a later deploy', () => {
  const deployed = JSON.parse(readFileSync(new URL('./deployed-table.json', import.meta.url), 'utf8')) as TableShape;
  const current = () => shapeOf(plain.resources('AWS::DynamoDB::Table')[0]![1].Properties);
  const index = (name: string, pk = `${name}pk`) => ({ IndexName: name, KeySchema: [{ AttributeName: pk, KeyType: 'HASH' }, { AttributeName: `${name}sk`, KeyType: 'RANGE' }], Projection: { ProjectionType: 'ALL' } });

  it('keeps the table within what one CloudFormation update can do from the deployed definition', () => {
    expect(unapplicableChanges(deployed, current())).toEqual([]);
  });

  it('refuses two indexes at once, a redefined index, a new key schema and a new stream view', () => {
    const base = current();
    const gsis = base.GlobalSecondaryIndexes!;
    expect(unapplicableChanges(base, { ...base, GlobalSecondaryIndexes: [...gsis, index('gsi8')] })).toEqual([]);
    expect(unapplicableChanges(base, { ...base, GlobalSecondaryIndexes: gsis.slice(1) })).toEqual([]);
    expect(unapplicableChanges(base, { ...base, GlobalSecondaryIndexes: [...gsis, index('gsi8'), index('gsi9')] })).toHaveLength(1);
    expect(unapplicableChanges(base, { ...base, GlobalSecondaryIndexes: [...gsis.slice(1), index('gsi8')] })).toHaveLength(1);
    expect(unapplicableChanges(base, { ...base, GlobalSecondaryIndexes: [index(gsis[0]!.IndexName, 'other'), ...gsis.slice(1)] })).toHaveLength(1);
    expect(unapplicableChanges(base, { ...base, KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] })).toHaveLength(1);
    expect(unapplicableChanges(base, { ...base, LocalSecondaryIndexes: [index('lsi1', 'pk')] })).toHaveLength(1);
    expect(unapplicableChanges(base, { ...base, StreamSpecification: { StreamViewType: 'NEW_IMAGE' } })).toHaveLength(1);
  });

  it('gives no resource a fixed name that a replacement would collide with', () => {
    // Name properties a template may set, and those whose value is known to change with every replacement.
    const named = [plain.template, ...plain.edge].flatMap((t) => Object.entries(t.Resources)).flatMap(([, r]) =>
      ['TableName', 'QueueName', 'TopicName', 'RoleName', 'FunctionName', 'BucketName', 'LogGroupName', 'Name', 'AlarmName', 'KeyAlias', 'ScheduleGroupName', 'SecretName']
        .filter((p) => typeof r.Properties?.[p] === 'string' && !['AWS::Lambda::Permission', 'AWS::Lambda::EventSourceMapping', 'AWS::Lambda::EventInvokeConfig'].includes(r.Type))
        .map((p) => `${r.Type}.${p}`),
    );
    // An HTTP API's name is no identifier; a CloudFront Function's name changes only by replacing it
    // (its code and runtime update in place); the log delivery destination's name carries a digest
    // of the settings that replace it (the source's is joined with the distribution id at deploy).
    expect(named.sort()).toEqual(['AWS::ApiGatewayV2::Api.Name', 'AWS::CloudFront::Function.Name', 'AWS::Logs::DeliveryDestination.Name']);
  });
});
