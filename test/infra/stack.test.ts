import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type { PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionGroups } from '../../functions/index.ts';
import { DEFAULT_RATE_LIMIT_PER_IP, DeliveryOpsStack } from '../../infra/stack.ts';
import { routeKey } from '../../shared/http/operation.ts';
import { tableDefinition } from '../../shared/table/definition.ts';
import { FUNCTION_NAME_METADATA } from '../../infra/constructs/service-function.ts';
import { TemplateNames, type Template as IamTemplate } from '../iam/template-names.ts';
import { sharedAssembly, sharedSynth } from './synth.ts';
import { metricsOf } from './alarm-metrics.ts';

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DeletionPolicy?: string };

// The run's synthesis of the stack, shared with the other infra files (synth.ts, sharedSynth), and
// the run's cloud assembly with every function bundled, shared with bundles.test.ts: both are made
// in child processes, so this worker never blocks on them.
let stack: DeliveryOpsStack;
let template: Template;
let nagReport: PolicyValidationPluginReport;
let edgeResources: (type: string) => [string, Resource][];

const resources = (type: string): [string, Resource][] =>
  Object.entries(template.toJSON().Resources as Record<string, Resource>).filter(([, r]) => r.Type === type);
const apiFunctions = () => resources('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.OIDC_ISSUER);

beforeAll(async () => {
  ({ stack, template, nagReport, edgeResources } = await sharedSynth());
}, 600_000);

describe('table', () => {
  it('is on-demand with point-in-time recovery, TTL, stream and its indexes, and is kept (except after a failed create)', () => {
    const d = tableDefinition;
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: d.partitionKey, KeyType: 'HASH' },
          { AttributeName: d.sortKey, KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: d.ttlAttribute, Enabled: true },
        StreamSpecification: { StreamViewType: d.streamViewType },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        GlobalSecondaryIndexes: d.globalIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    });
  });
});

describe('functions', () => {
  it('has one Node 24 arm64 function per endpoint group', () => {
    const fns = apiFunctions();
    expect(fns).toHaveLength(functionGroups.length);
    for (const [id, fn] of fns) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Timeout: 10,
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
      });
      // The webhooks group seals signing secrets through the webhook ports (webhook-pipeline.ts), the
      // integrations and invoicing groups provider tokens (billing-provider.ts; PROVIDER_* only with context).
      // Field too: it reads an internal transfer's destination among the connection's live offices (decisions 16).
      const ports: string[] = ['FunctionsWebhooks', 'FunctionsIntegrations', 'FunctionsInvoicing', 'FunctionsField'].some((group) => id.startsWith(group))
        ? ['WEBHOOK_KMS_KEY_ID', 'WEBHOOK_QUEUE_ARN', 'WEBHOOK_QUEUE_URL', 'WEBHOOK_SCHEDULER_ROLE_ARN', 'WEBHOOK_SCHEDULE_GROUP']
        : [];
      // The integrations group also queues imports (record-imports.ts), the field group a route's dispatch guides (dispatch-guides.ts).
      if (id.startsWith('FunctionsIntegrations') || id.startsWith('FunctionsField')) ports.push('IMPORT_QUEUE_URL');
      // The routing group queues route previews (route-previews.ts).
      if (id.startsWith('FunctionsRouting')) ports.push('PREVIEW_QUEUE_URL');
      expect(Object.keys(fn.Properties.Environment.Variables).sort()).toEqual(
        // ORIGIN_VERIFY_SECRET_ARN: the origin check (test/infra/edge.test.ts).
        ['NODE_OPTIONS', 'OIDC_AUDIENCE', 'OIDC_ISSUER', 'OIDC_MFA_ENFORCED', 'ORIGIN_VERIFY_SECRET_ARN', 'POWERTOOLS_SERVICE_NAME', 'TABLE_NAME', ...ports].sort(),
      );
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
      expect(fn.Properties.LoggingConfig.LogGroup).toEqual({ Ref: expect.any(String) });
    }
  });

  it('bundles each group as minified ESM with a source map and a require shim', async () => {
    const assembly = await sharedAssembly();
    const deployed = JSON.parse(readFileSync(join(assembly, 'DeliveryOps.template.json'), 'utf8')) as IamTemplate & { Resources: Record<string, Resource> };
    const assets = JSON.parse(readFileSync(join(assembly, 'DeliveryOps.assets.json'), 'utf8')) as { files: Record<string, { source: { path: string } }> };
    for (const { name } of functionGroups) {
      const [, fn] = Object.entries(deployed.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Metadata?.[FUNCTION_NAME_METADATA] === name) ?? [];
      expect(fn, name).toBeDefined();
      const hash = String(new TemplateNames(deployed).resolve(fn!.Properties.Code.S3Key)).replace(/\.zip$/, '');
      const assetDir = join(assembly, assets.files[hash]?.source.path ?? `no asset ${hash}`);
      expect(existsSync(join(assetDir, 'index.mjs.map')), `${name} source map`).toBe(true);
      const code = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      expect(code.startsWith('import { createRequire as __createRequire }'), `${name} banner`).toBe(true);
    }
  }, 600_000);

  it('lets each function use only its own log group and the table actions its manifest entry declares', () => {
    const functionPolicies = resources('AWS::IAM::Policy').filter(([id]) => id.startsWith('Functions'));
    expect(functionPolicies).toHaveLength(functionGroups.length);
    for (const [id, policy] of functionPolicies) {
      const group = functionGroups.find((g) => id.startsWith(`Functions${g.name[0]!.toUpperCase()}${g.name.slice(1)}Role`))!;
      const actions = policy.Properties.PolicyDocument.Statement.flatMap((statement: { Action: string | string[] }) => [statement.Action].flat());
      const declared = [...group.table.items, ...(group.table.queries?.length ? ['Query'] : [])].map((a) => `dynamodb:${a}`);
      expect(new Set(actions.filter((action: string) => action.startsWith('dynamodb:'))), group.name).toEqual(new Set(declared));
      expect(actions.filter((action: string) => action.startsWith('logs:')).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    }
    for (const [, role] of resources('AWS::IAM::Role')) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('HTTP API', () => {
  it('has exactly the route keys of the manifest', () => {
    // Plus `$default`, the catch-all that answers 404 problem+json (test/infra/edge.test.ts).
    const expected = [...functionGroups.flatMap((group) => group.operations.map(routeKey)), '$default'].sort();
    const actual = resources('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string).sort();
    expect(actual).toEqual(expected);
    expect(new Set(actual).size).toBe(actual.length);
  });

  it('sends each route to its group with payload format 2.0', () => {
    const integrations = resources('AWS::ApiGatewayV2::Integration');
    expect(integrations).toHaveLength(functionGroups.length);
    for (const [, integration] of integrations) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
    const integrationOf = new Map(integrations.map(([id, r]) => [id, r.Properties.IntegrationUri['Fn::GetAtt'][0] as string]));
    for (const group of functionGroups) {
      const fnId = stack.resolve(stack.getLogicalId(stack.functions.functionFor(group.name).node.defaultChild as CfnFunction));
      for (const operation of group.operations) {
        const [, route] = resources('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === routeKey(operation))!;
        const target = route.Properties.Target['Fn::Join'][1][1].Ref as string;
        expect(integrationOf.get(target), routeKey(operation)).toBe(fnId);
      }
    }
  });

  it('logs access and throttles the default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
  });
});

describe('edge', () => {
  it('puts one uncached, HTTPS-only CloudFront distribution with the web ACL in front of the API', () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    // The ACL is in the us-east-1 edge stack (test/infra/regions.test.ts); in one region, an export.
    expect(resources('AWS::WAFv2::WebACL')).toEqual([]);
    const [aclId] = edgeResources('AWS::WAFv2::WebACL')[0]!;
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        WebACLId: { 'Fn::ImportValue': Match.stringLikeRegexp(`^DeliveryOpsEdge:ExportsOutputFnGetAtt${aclId}Arn`) },
        Origins: [
          Match.objectLike({
            DomainName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.execute-api.us-east-1.'])]) }),
            CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] }),
          }),
        ],
        DefaultCacheBehavior: Match.objectLike({
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
          OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
        }),
      }),
    });
  });

  it('limits the rate per client address with a 429 and Retry-After, plus the AWS common rules', () => {
    Template.fromJSON({ Resources: Object.fromEntries(edgeResources('AWS::WAFv2::WebACL')) }).hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      CustomResponseBodies: Match.anyValue(),
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: { RateBasedStatement: Match.objectLike({ AggregateKeyType: 'IP', Limit: DEFAULT_RATE_LIMIT_PER_IP }) },
          Action: {
            Block: {
              CustomResponse: Match.objectLike({
                ResponseCode: 429,
                ResponseHeaders: [{ Name: 'Retry-After', Value: Match.stringLikeRegexp('^\\d+$') }],
              }),
            },
          },
        }),
        Match.objectLike({
          Statement: { ManagedRuleGroupStatement: Match.objectLike({ VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' }) },
        }),
      ]),
    });
  });
});

describe('public tracking at the edge', () => {
  const behaviour = (pattern: string) => {
    const [, distribution] = resources('AWS::CloudFront::Distribution')[0]!;
    return (distribution.Properties.DistributionConfig.CacheBehaviors as Record<string, any>[]).find((b) => b.PathPattern === pattern)!;
  };
  const policyOf = (type: string, ref: { Ref: string }) => (template.toJSON().Resources as Record<string, Resource>)[ref.Ref]!;

  it('caches /v1/track/* by path only and /t/* by path and language, for no longer than refreshSeconds', () => {
    for (const [pattern, headers] of [
      ['/v1/track/*', { HeaderBehavior: 'none' }],
      ['/t/*', { HeaderBehavior: 'whitelist', Headers: ['Accept-Language'] }],
    ] as const) {
      const b = behaviour(pattern);
      expect(b, pattern).toBeDefined();
      expect(b).toMatchObject({ ViewerProtocolPolicy: 'https-only', AllowedMethods: ['GET', 'HEAD'], Compress: true });
      const cache = policyOf('AWS::CloudFront::CachePolicy', b.CachePolicyId).Properties.CachePolicyConfig;
      expect(cache).toMatchObject({ MinTTL: 0, DefaultTTL: 0, MaxTTL: 3600 });
      expect(cache.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
        CookiesConfig: { CookieBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
        HeadersConfig: headers,
      });
      expect(JSON.stringify(cache)).not.toMatch(/authorization/i);
    }
  });

  it('forwards nothing else to the origin and forces no-referrer and noindex', () => {
    const b = behaviour('/t/*');
    expect(behaviour('/v1/track/*').OriginRequestPolicyId).toEqual(b.OriginRequestPolicyId);
    const origin = policyOf('AWS::CloudFront::OriginRequestPolicy', b.OriginRequestPolicyId).Properties.OriginRequestPolicyConfig;
    expect(origin).toMatchObject({ HeadersConfig: { HeaderBehavior: 'none' }, CookiesConfig: { CookieBehavior: 'none' }, QueryStringsConfig: { QueryStringBehavior: 'none' } });
    const headers = policyOf('AWS::CloudFront::ResponseHeadersPolicy', b.ResponseHeadersPolicyId).Properties.ResponseHeadersPolicyConfig;
    expect(headers.SecurityHeadersConfig.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
    expect(headers.CustomHeadersConfig.Items).toEqual([{ Header: 'X-Robots-Tag', Value: 'noindex', Override: true }]);
  });
});

describe('webhook transport', () => {
  it('has an encrypted, TLS-only attempts queue that dead-letters after 5 receives', () => {
    const [[dlqId, dlq]] = resources('AWS::SQS::Queue').filter(([id]) => id.startsWith('WebhooksDeadLetters')) as [[string, Resource]];
    expect(dlq.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 180,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
    });
    for (const [, policy] of resources('AWS::SQS::QueuePolicy')) {
      expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('has a schedule group and a scheduler role that may only send to the attempts queue', () => {
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    const [queueId] = resources('AWS::SQS::Queue').find(([id]) => id.startsWith('WebhooksAttempts'))!;
    const [[roleId, role]] = resources('AWS::IAM::Role').filter(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('scheduler.amazonaws.com'),
    ) as [[string, Resource]];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
      }),
    ]);
    expect(role.Properties.Policies).toEqual([
      {
        PolicyName: expect.any(String),
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } }],
        },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const attached = resources('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId));
    expect(attached).toEqual([]);
  });
});

describe('logs and alarms', () => {
  it('keeps every log group for one month', () => {
    const groups = resources('AWS::Logs::LogGroup');
    // One per function plus the API access log.
    expect(groups.length).toBeGreaterThanOrEqual(functionGroups.length + 1);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('alarms on API 5xx, function errors and throttles, and dead letters, to an SSL-only topic', () => {
    const [topicId] = resources('AWS::SNS::Topic')[0]!;
    const alarms = resources('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(alarms.filter((a) => a.Namespace === 'AWS/ApiGateway' && a.MetricName === '5xx')).toHaveLength(1);
    // Every function: the endpoint groups, the webhook pipeline's, the jobs' and the stream consumers'.
    const functionCount = resources('AWS::Lambda::Function').length;
    expect(alarms.filter((a) => metricsOf(a).some((m) => m.Namespace === 'AWS/Lambda' && m.MetricName === 'Throttles'))).toHaveLength(functionCount);
    expect(alarms.filter((a) => a.Namespace === 'AWS/Lambda' && a.MetricName === 'Errors')).toHaveLength(functionCount);
    const [dlqId] = resources('AWS::SQS::Queue').find(([id]) => id.startsWith('WebhooksDeadLetters'))!;
    expect(alarms).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      }),
    );
    const [, topicPolicy] = resources('AWS::SNS::TopicPolicy')[0]!;
    expect(JSON.stringify(topicPolicy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is not acknowledged', () => {
    const findings = nagReport.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} (${v.severity}) at ${r.constructPath}: ${v.description}`));
    if (findings.length > 0) console.error(`cdk-nag findings:\n${findings.join('\n')}`);
    // Warnings count too: any violation fails `cdk synth` in infra/app.ts.
    expect(findings).toEqual([]);
  });

  it('gives every acknowledgement a real reason', () => {
    const acknowledged = new Map<string, string>();
    for (const construct of stack.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) acknowledged.set(`${construct.node.path} ${id}`, reason);
      }
    }
    expect(acknowledged.size).toBeGreaterThan(0);
    for (const [where, reason] of acknowledged) expect(reason.trim().length, where).toBeGreaterThanOrEqual(20);

    const rules = Object.values(template.toJSON().Resources as Record<string, Resource>).flatMap(
      (r) => (r.Metadata?.cdk_nag?.rules_to_suppress ?? []) as { id: string; reason: string }[],
    );
    for (const rule of rules) expect(rule.reason.length, rule.id).toBeGreaterThanOrEqual(20);
    // A new acknowledgement is a decision: add it here and to docs/cloud-stack.md.
    expect([...new Set(rules.map((r) => r.id))].sort()).toEqual(
      [
        'AwsSolutions-APIG4',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:us-east-1:<AWS::AccountId>:schedule/<WebhooksRetrySchedules0F085958>/*]',
        'AwsSolutions-S1',
        'AwsSolutions-SQS3',
      ].sort(),
    );
  });
});
