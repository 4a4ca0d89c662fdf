import { beforeAll, describe, expect, it } from 'vitest';
import { stackNames } from '../../infra/deployment.ts';
import {
  Rehearsal,
  arnProblem,
  functionsLoggingOutsideTheTemplate,
  lambdaLogGroupProblems,
  nameProblems,
  outerNameProblems,
  routeSettingsProblems,
  type SynthesizedStack,
} from './rehearsal.ts';
import { synthDeployment } from './rehearsal-synth.ts';

/**
 * The synthesized templates rehearsed as CloudFormation and each service would meet them
 * (test/infra/rehearsal.ts; docs/cloud-stack.md, Template rehearsal): prod with the API in
 * sa-east-1 (cross-region references), and two more deployments in the same account, one in the
 * same region and one in us-east-1 with the longest deployment name decisions 20 allows.
 */
const LONGEST = 'staging-20-chars-max';
const deployments = [
  ['prod', 'sa-east-1'],
  ['staging', 'sa-east-1'],
  [LONGEST, 'us-east-1'],
] as const;
const synths = new Map<string, SynthesizedStack[]>();
const rehearsals = () => [...synths.entries()].map(([key, stacks]) => [key, new Rehearsal(stacks)] as const);

beforeAll(async () => {
  for (const [deployment, region] of deployments) {
    synths.set(`${deployment}@${region}`, synthDeployment(deployment, region).stacks);
    // Each synth is seconds of CPU: let the worker answer vitest between them.
    await new Promise((resolve) => setImmediate(resolve));
  }
}, 300_000);

const copy = (stacks: SynthesizedStack[]): SynthesizedStack[] => structuredClone(stacks);

describe('every API stage waits for the routes its settings name (decisions 20)', () => {
  it('in every synthesized template, each route-settings key is a route of the API and the stage depends on it', () => {
    let stages = 0;
    for (const [key, r] of rehearsals()) {
      for (const s of r.stacks) {
        for (const [stageId, stage] of s.ofType('AWS::ApiGatewayV2::Stage')) {
          const keys = Object.keys(stage.Properties?.RouteSettings ?? {});
          if (keys.length === 0) continue;
          stages++;
          const dependsOn = [stage.DependsOn ?? []].flat();
          for (const routeKey of keys) {
            const [routeId] = s.ofType('AWS::ApiGatewayV2::Route').find(([, route]) => route.Properties?.RouteKey === routeKey)!;
            expect(dependsOn, `${key} ${stageId} ${routeKey}`).toContain(routeId);
          }
        }
        expect(routeSettingsProblems(s), key).toEqual([]);
      }
    }
    expect(stages).toBe(deployments.length);
  });
});

describe('the rehearsal of each deployment', () => {
  it('finds a creation order without cycles, and every cross-stack reference reads a stack deployed before it', () => {
    for (const [key, r] of rehearsals()) {
      for (const s of r.stacks) expect(s.creationOrder().length, `${key} ${s.name}`).toBe(Object.keys(s.resources).length);
      expect(r.stackOrderProblems(), key).toEqual([]);
      // The distribution reads the web ACL; the log delivery reads the distribution and the bucket.
      expect(r.crossStackReferences.length, key).toBeGreaterThanOrEqual(3);
    }
  });

  it('passes every check: route keys, log group names, ARNs built as strings, names within AWS limits', async () => {
    for (const [key, r] of rehearsals()) {
      expect(await r.problems(), key).toEqual([]);
      expect(outerNameProblems(r), key).toEqual([]);
    }
  });

  it('leaves only CDK’s cross-region handlers writing to a log group Lambda makes itself', () => {
    for (const [key, r] of rehearsals()) {
      const outside = r.stacks.flatMap((s) => functionsLoggingOutsideTheTemplate(s));
      for (const id of outside) expect(id, key).toMatch(/^CustomCrossRegionExport(Reader|Writer)CustomResourceProviderHandler/);
    }
  });
});

describe('the rehearsal catches what the review found', () => {
  const prod = () => copy(synths.get('prod@sa-east-1')!);
  const app = (stacks: SynthesizedStack[]) => stacks.find((s) => s.name === 'DeliveryOps')!;

  it('a stage created before the routes its settings name', () => {
    const stacks = prod();
    const [, stage] = Object.entries(app(stacks).template.Resources).find(([, r]) => r.Type === 'AWS::ApiGatewayV2::Stage')!;
    stage.DependsOn = [stage.DependsOn ?? []].flat().filter((id) => app(stacks).template.Resources[id]?.Type !== 'AWS::ApiGatewayV2::Route');
    const problems = routeSettingsProblems(new Rehearsal(stacks).stack('DeliveryOps'));
    expect(problems.sort()).toEqual([expect.stringContaining('GET /t/{token}'), expect.stringContaining('GET /v1/track/{token}')]);
    for (const problem of problems) expect(problem).toMatch(/does not wait for that route/);
  });

  it('a delivery source named in slash form, and other ARNs that match no format', async () => {
    expect(await arnProblem('arn:aws:logs:us-east-1:123456789012:delivery-source/*')).toMatch(/none of logs/);
    expect(await arnProblem('arn:aws:logs:us-east-1:123456789012:delivery-source:*')).toBeUndefined();
    expect(await arnProblem('arn:aws:cloudfront:us-east-1:123456789012:distribution/E2QWRUHEXAMPLE')).toMatch(/none of cloudfront/);
    expect(await arnProblem('arn:aws:s3:::bucket/AWSLogs/123456789012/*')).toBeUndefined();
    expect(await arnProblem('arn:aws:scheduler:sa-east-1:123456789012:schedule/group/*')).toBeUndefined();
    expect(await arnProblem('arn:aws:dynamodb:sa-east-1:123456789012:tabel/t')).toMatch(/none of dynamodb/);
  });

  it('a log group named /aws/lambda/<function> that the function does not wait for', () => {
    const stacks = prod();
    const resources = app(stacks).template.Resources;
    const [fnId, fn] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties?.LoggingConfig)!;
    delete fn.Properties.LoggingConfig;
    resources.NamedLogs = { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: { 'Fn::Join': ['', ['/aws/lambda/', { Ref: fnId }]] } } };
    expect(lambdaLogGroupProblems(new Rehearsal(stacks).stack('DeliveryOps'))).toEqual([expect.stringMatching(/made after its function/)]);
    fn.DependsOn = ['NamedLogs'];
    expect(lambdaLogGroupProblems(new Rehearsal(stacks).stack('DeliveryOps'))).toEqual([]);
  });

  it('a name past its AWS limit', () => {
    const stacks = prod();
    const resources = stacks.find((s) => s.name === 'DeliveryOpsEdgeLogs')!.template.Resources;
    const [, source] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::Logs::DeliverySource')!;
    source.Properties.Name = { 'Fn::Join': ['-', ['x'.repeat(46), 'E2QWRUHEXAMPLE']] };
    expect(nameProblems(new Rehearsal(stacks).stack('DeliveryOpsEdgeLogs'))).toEqual([expect.stringMatching(/DeliverySource name x+-E2QWRUHEXAMPLE \(61\)/)]);
  });

  it('a dependency cycle, and a stack that reads another deployed after it', () => {
    const stacks = prod();
    const resources = app(stacks).template.Resources;
    const [a, b] = Object.keys(resources).filter((id) => resources[id]!.Type === 'AWS::SQS::Queue') as [string, string];
    resources[a]!.DependsOn = [b];
    resources[b]!.DependsOn = [a];
    expect(() => new Rehearsal(stacks).stack('DeliveryOps').creationOrder()).toThrow(/cycle/);
    const reversed = prod().reverse();
    expect(new Rehearsal(reversed).stackOrderProblems()).toContainEqual(expect.stringMatching(/deployed after it/));
  });
});

describe('several deployments in one account (decisions 20)', () => {
  const names = (key: string) => new Rehearsal(synths.get(key)!).physicalNames();
  const shared = (a: string, b: string) => {
    const other = new Set(names(b).map((n) => `${n.scope} ${n.value}`));
    return names(a).filter((n) => other.has(`${n.scope} ${n.value}`));
  };

  it('names the stacks after the deployment, prod keeping its names', () => {
    expect(stackNames()).toEqual({ acl: 'DeliveryOpsEdge', app: 'DeliveryOps', logs: 'DeliveryOpsEdgeLogs' });
    expect(stackNames('staging')).toEqual({ acl: 'DeliveryOps-staging-Edge', app: 'DeliveryOps-staging', logs: 'DeliveryOps-staging-EdgeLogs' });
    for (const bad of ['', 'Staging', 'a_b', 'x'.repeat(21)]) expect(() => stackNames(bad), bad).toThrow(/1-20 of a-z/);
    expect(synths.get('staging@sa-east-1')!.map((s) => s.name).sort()).toEqual(Object.values(stackNames('staging')).sort());
  });

  it('shares no physical name between staging and prod in one region', () => {
    expect(names('prod@sa-east-1').length).toBeGreaterThan(20);
    expect(shared('prod@sa-east-1', 'staging@sa-east-1')).toEqual([]);
  });

  it('shares no physical name between two deployments in two regions (the edge stacks share us-east-1)', () => {
    expect(shared('prod@sa-east-1', `${LONGEST}@us-east-1`)).toEqual([]);
    expect(shared('staging@sa-east-1', `${LONGEST}@us-east-1`)).toEqual([]);
  });

  it('puts the deployment in every CloudFront policy and function name, every API name and every exported parameter path', () => {
    for (const deployment of ['staging', LONGEST]) {
      const key = [...synths.keys()].find((k) => k.startsWith(`${deployment}@`))!;
      const all = names(key);
      const named = all.filter((n) => /CloudFront|ApiGatewayV2::Api|Logs::Delivery/.test(n.kind) || n.kind === 'ssm-parameter' || n.kind === 'stack');
      expect(named.length, key).toBeGreaterThan(5);
      for (const n of named) expect(n.value, `${key} ${n.kind}`).toContain(deployment);
    }
  });
});
