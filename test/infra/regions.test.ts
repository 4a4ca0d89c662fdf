import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import type { Resource } from './synth.ts';
import { NO_BUILTIN_VALIDATION_ENV, templateApp } from './test-app.ts';

/**
 * The API's stack goes to the team's region; only the CloudFront web ACL and the distribution's
 * log delivery, which AWS takes only in us-east-1, live in the two edge stacks there. Synthesized
 * without bundling (the functions' code plays no part), with cdk-nag as infra/app.ts runs it.
 */
type Json = Record<string, any>;
const synth = (region: string, context: Record<string, unknown> = {}) => {
  const app = templateApp(context);
  const nag = new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true });
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region } });
  const json = (s: Stack) => Template.fromStack(s).toJSON() as { Resources: Record<string, Resource>; Outputs?: Json };
  const [app_, acl, logs] = [stack, stack.edgeAcl, stack.edgeLogs].map(json) as [ReturnType<typeof json>, ReturnType<typeof json>, ReturnType<typeof json>];
  const of = (t: { Resources: Record<string, Resource> }, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
  const order = app.synth().stacksRecursively.map((s) => s.stackName);
  const nagReports = [stack, stack.edgeAcl, stack.edgeLogs].map((s) => nag.validateScope(s));
  return { stack, templates: { app: app_, acl, logs }, of, order, nagReports };
};
type Synth = ReturnType<typeof synth>;

const regions = ['sa-east-1', 'us-east-1'] as const;
const synths = new Map<string, Synth>();
beforeAll(async () => {
  for (const region of regions) {
    synths.set(region, synth(region));
    // Each synth is seconds of CPU: let the worker answer vitest between them.
    await new Promise((resolve) => setImmediate(resolve));
  }
}, 180_000);

describe.each(regions)('the API in %s', (region) => {
  const s = () => synths.get(region)!;

  it('puts the API, its data and its logs in that region and only the edge pieces in us-east-1', () => {
    const { stack, templates, of } = s();
    expect([stack.region, stack.edgeAcl.region, stack.edgeLogs.region]).toEqual([region, 'us-east-1', 'us-east-1']);
    for (const type of ['AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::S3::Bucket', 'AWS::CloudFront::Distribution', 'AWS::SNS::Topic']) {
      expect(of(templates.app, type), type).toHaveLength(1);
      expect([...of(templates.acl, type), ...of(templates.logs, type)], type).toEqual([]);
    }
    expect(of(templates.app, 'AWS::Lambda::Function').length).toBeGreaterThan(10);
    for (const edge of [templates.acl, templates.logs]) {
      // The cross-region references' own handler aside, no function runs in us-east-1.
      const functions = of(edge, 'AWS::Lambda::Function').filter(([, r]) => !JSON.stringify(r.Properties.Handler ?? '').includes('__entrypoint__'));
      expect(functions).toEqual([]);
    }
  });

  it('has the web ACL only in the us-east-1 edge stack, and the distribution uses it', () => {
    const { templates, of } = s();
    expect(of(templates.app, 'AWS::WAFv2::WebACL')).toEqual([]);
    expect(of(templates.logs, 'AWS::WAFv2::WebACL')).toEqual([]);
    const [[aclId, acl]] = of(templates.acl, 'AWS::WAFv2::WebACL') as [[string, Resource]];
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    const [[, distribution]] = of(templates.app, 'AWS::CloudFront::Distribution') as [[string, Resource]];
    const webAclId = distribution.Properties.DistributionConfig.WebACLId as Json;
    const aclArn = { 'Fn::GetAtt': [aclId, 'Arn'] };
    if (region === 'us-east-1') {
      // One region: a CloudFormation export of the edge stack.
      const exported = Object.values(templates.acl.Outputs ?? {}).find((o: Json) => o.Export?.Name === webAclId['Fn::ImportValue']);
      expect(exported?.Value).toEqual(aclArn);
    } else {
      // Across regions: the edge stack writes an SSM parameter in this region, a reader here reads it.
      const [reader, parameter] = webAclId['Fn::GetAtt'] as [string, string];
      expect(templates.app.Resources[reader]!.Type).toBe('Custom::CrossRegionExportReader');
      const [[, writer]] = of(templates.acl, 'Custom::CrossRegionExportWriter') as [[string, Resource]];
      expect(writer.Properties.WriterProps).toMatchObject({ region, exports: { [parameter]: aclArn } });
    }
  });

  it('delivers the access logs from us-east-1 to the bucket in the API region', () => {
    const { stack, templates, of } = s();
    expect(of(templates.app, 'AWS::Logs::DeliverySource')).toEqual([]);
    expect(of(templates.logs, 'AWS::Logs::DeliverySource')).toHaveLength(1);
    const [[, destination]] = of(templates.logs, 'AWS::Logs::DeliveryDestination') as [[string, Resource]];
    const bucketId = stack.resolve(stack.getLogicalId(stack.edge.logBucket.node.defaultChild as never)) as string;
    expect(JSON.stringify(destination.Properties.DestinationResourceArn)).toContain(bucketId);
    const [[, policy]] = of(templates.app, 'AWS::S3::BucketPolicy').filter(([, p]) => JSON.stringify(p.Properties.Bucket).includes(bucketId)) as [[string, Resource]];
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain(':logs:us-east-1:');
  });

  it('deploys the web ACL first and the log delivery last', () => {
    const order = s().order.filter((name) => name.startsWith('DeliveryOps'));
    expect(order).toEqual(['DeliveryOpsEdge', 'DeliveryOps', 'DeliveryOpsEdgeLogs']);
  });

  it('leaves cdk-nag nothing unacknowledged in any of the three stacks', () => {
    for (const report of s().nagReports) {
      const findings = report.violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}`));
      expect(findings).toEqual([]);
    }
  });
});

describe('the alarm e-mail', () => {
  it('warns at synth when there is none, and not when there is one', () => {
    const warning = Match.stringLikeRegexp('No alarmEmail');
    Annotations.fromStack(synths.get('sa-east-1')!.stack).hasWarning('/DeliveryOps', warning);
    Annotations.fromStack(synth('sa-east-1', { alarmEmail: 'ops@example.cl' }).stack).hasNoWarning('/DeliveryOps', warning);
    // A synth in the test: seconds of CPU, more on a busy machine.
  }, 180_000);
});

describe('infra/app.ts', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'delivery-ops-app-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** infra/app.ts as `cdk synth` runs it (no bundling, no built-in validation: test-app.ts), with a settings file and CLI context of the test's. */
  const runApp = async (name: string, settings: Json | undefined, cliContext: Json, env: Record<string, string> = {}, stack = 'DeliveryOps') => {
    const outdir = join(dir, name);
    const file = join(dir, `${name}.settings.json`);
    if (settings) writeFileSync(file, JSON.stringify(settings));
    const { CDK_DEFAULT_REGION: _, ...inherited } = process.env;
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
      cwd: root,
      env: { ...inherited, ...NO_BUILTIN_VALIDATION_ENV, ...env, CDK_OUTDIR: outdir, DELIVERY_OPS_DEPLOY_SETTINGS: file, CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [], ...cliContext }) },
      maxBuffer: 64 * 1024 * 1024,
    });
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { environment?: string }> };
    const template = JSON.parse(readFileSync(join(outdir, `${stack}.template.json`), 'utf8')) as { Resources: Record<string, Resource> };
    return { environment: manifest.artifacts[stack]!.environment, template, stacks: Object.keys(manifest.artifacts).filter((k) => k.startsWith('DeliveryOps') && !k.includes('.')).sort() };
  };
  const subscriptions = (t: { Resources: Record<string, Resource> }) => Object.values(t.Resources).filter((r) => r.Type === 'AWS::SNS::Subscription').map((r) => r.Properties.Endpoint);
  const reserved = (t: { Resources: Record<string, Resource> }) => Object.values(t.Resources).filter((r) => r.Properties?.ReservedConcurrentExecutions !== undefined);

  const settings = { region: 'sa-east-1', alarmEmail: 'ops@example.cl', accountConcurrency: 1000 };

  it('takes the settings file as the context', async () => {
    const fromFile = await runApp('file', settings, {}, { CDK_DEFAULT_REGION: 'eu-west-1' });
    expect(fromFile.environment).toBe('aws://unknown-account/sa-east-1');
    expect(subscriptions(fromFile.template)).toEqual(['ops@example.cl']);
    expect(reserved(fromFile.template)).toHaveLength(4);
  }, 180_000);

  it('takes the entry of -c deployment=NAME, and names the three stacks after it', async () => {
    const both = { prod: settings, staging: { region: 'us-east-2', alarmEmail: 'qa@example.cl' } };
    const staging = await runApp('staging', both, { deployment: 'staging' }, {}, 'DeliveryOps-staging');
    expect(staging.environment).toBe('aws://unknown-account/us-east-2');
    expect(staging.stacks).toEqual(['DeliveryOps-staging', 'DeliveryOps-staging-Edge', 'DeliveryOps-staging-EdgeLogs']);
    expect(subscriptions(staging.template)).toEqual(['qa@example.cl']);
    expect(reserved(staging.template)).toEqual([]);
  }, 180_000);

  it('takes a -c value over the file, and the profile region when neither names one', async () => {
    const { region: _, ...noRegion } = settings;
    const overridden = await runApp('cli', noRegion, { alarmEmail: 'noc@example.cl', accountConcurrency: '10' }, { CDK_DEFAULT_REGION: 'eu-west-1' });
    expect(overridden.environment).toBe('aws://unknown-account/eu-west-1');
    expect(subscriptions(overridden.template)).toEqual(['noc@example.cl']);
    expect(reserved(overridden.template)).toEqual([]);
  }, 180_000);
});
