import { readFileSync } from 'node:fs';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionGroups } from '../../functions/index.ts';
import { trackingOperations } from '../../functions/tracking/operations.ts';
import { ACCESS_LOG_FIELDS, VIEWER_HOST_FUNCTION_FILE } from '../../infra/constructs/edge.ts';
import { TRACKING_ROUTE_THROTTLE } from '../../infra/constructs/http-api.ts';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { ORIGIN_VERIFY_HEADER, VIEWER_HOST_HEADER } from '../../shared/http/edge-headers.ts';
import { sharedSynth, type Resource, type Synthesized } from './synth.ts';
import { ACCOUNT, TemplateNames } from '../iam/template-names.ts';
import { templateApp } from './test-app.ts';

let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth();
}, 180_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string =>
  synth.stack.resolve(synth.stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string;
const one = (type: string): [string, Resource] => {
  const found = synth.resources(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const distributionConfig = () => one('AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
const apiFunctions = () => synth.resources('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.OIDC_ISSUER);
const statementsOf = (roleId: string) =>
  synth
    .resources('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
const roleOf = (fn: Resource) => fn.Properties.Role['Fn::GetAtt'][0] as string;

describe('only CloudFront reaches the API (origin secret)', () => {
  it('sends the secret from Secrets Manager in x-origin-verify on every origin request, never written in the template', () => {
    const secretId = logicalId(synth.stack.originSecret.secret);
    const [origin] = distributionConfig().Origins;
    expect(origin.OriginCustomHeaders).toEqual([
      { HeaderName: ORIGIN_VERIFY_HEADER, HeaderValue: { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] } },
    ]);
  });

  it('turns the check on in every API function, which may only read that secret', () => {
    const secretId = logicalId(synth.stack.originSecret.secret);
    const fns = apiFunctions();
    expect(fns).toHaveLength(functionGroups.length);
    for (const [id, fn] of fns) {
      expect(fn.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET_ARN, id).toEqual({ Ref: secretId });
      const secretStatements = statementsOf(roleOf(fn)).filter((s) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:')));
      expect(secretStatements, id).toEqual([{ Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretId } }]);
    }
  });

  it('rotates the secret every 30 days with the rotation function, which may change only this secret and this distribution, and read its web ACL', () => {
    const secretId = logicalId(synth.stack.originSecret.secret);
    const rotation = synth.stack.originSecret.rotation.function;
    const [, schedule] = one('AWS::SecretsManager::RotationSchedule');
    expect(schedule.Properties).toMatchObject({
      SecretId: { Ref: secretId },
      RotationLambdaARN: { 'Fn::GetAtt': [logicalId(rotation), 'Arn'] },
      RotationRules: { ScheduleExpression: 'rate(30 days)' },
    });
    const [, fn] = synth.resources('AWS::Lambda::Function').find(([id]) => id === logicalId(rotation))!;
    const distributionId = logicalId(synth.stack.edge.distribution);
    expect(fn.Properties.Environment.Variables.DISTRIBUTION_ID).toEqual({ Ref: distributionId });
    const statements = statementsOf(roleOf(fn));
    const cloudFront = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('cloudfront:')));
    expect(cloudFront).toHaveLength(1);
    expect([cloudFront[0]!.Action].flat().sort()).toEqual(['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution']);
    expect(JSON.stringify(cloudFront[0]!.Resource)).toContain(`":distribution/",{"Ref":"${distributionId}"}`);
    // The configuration it sends back names the web ACL, which CloudFront checks it may read.
    const waf = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('wafv2:')));
    expect(waf).toEqual([{ Action: 'wafv2:GetWebACL', Effect: 'Allow', Resource: distributionConfig().WebACLId }]);
    for (const s of statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:') && a !== 'secretsmanager:GetRandomPassword'))) {
      expect(s.Resource).toEqual({ Ref: secretId });
    }
  });
});

describe('the public tracking function', () => {
  it('has no reservation unless the account quota is stated (test/infra/first-deploy.test.ts)', () => {
    for (const [id, fn] of apiFunctions()) expect(fn.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
  });

  // Issue 29: a flood of uncacheable link requests must not take a new account's 10 executions.
  it('is bounded in every deploy by its two routes’ own throttle, well below the stage’s', () => {
    const [, stage] = one('AWS::ApiGatewayV2::Stage');
    const trackingRoutes = trackingOperations.map((operation) => `${operation.method} ${operation.path}`);
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual([...trackingRoutes].sort());
    for (const route of trackingRoutes) {
      expect(stage.Properties.RouteSettings[route]).toEqual({ ThrottlingRateLimit: TRACKING_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: TRACKING_ROUTE_THROTTLE.burstLimit });
    }
    expect(TRACKING_ROUTE_THROTTLE.rateLimit).toBeLessThan(stage.Properties.DefaultRouteSettings.ThrottlingRateLimit / 5);
    const routeKeys = synth.resources('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    for (const route of trackingRoutes) expect(routeKeys).toContain(route);
  });
});

describe('viewer host for absolute tracking links', () => {
  const cfFunction = () => one('AWS::CloudFront::Function')[1];

  /** The function's code as CloudFront gets it, run as CloudFront runs a viewer-request function. */
  const run = (headers: Record<string, { value: string }>) => {
    const code = cfFunction().Properties.FunctionCode as string;
    const handler = new Function(`${code}\nreturn handler;`)() as (event: unknown) => { headers: Record<string, { value: string }> };
    const event = { version: '1.0', context: { eventType: 'viewer-request', requestId: 'abc' }, viewer: { ip: '198.51.100.7' }, request: { method: 'POST', uri: '/v1/distribution/orders', querystring: {}, headers, cookies: {} } };
    return handler(event).headers;
  };

  it('runs on viewer requests of the default behaviour, with the code of infra/edge-functions', () => {
    const fn = cfFunction();
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.Properties.FunctionCode).toBe(readFileSync(VIEWER_HOST_FUNCTION_FILE, 'utf8'));
    const [fnId] = one('AWS::CloudFront::Function');
    expect(distributionConfig().DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } }]);
    // Headers a viewer-request function adds reach the origin only through the origin request
    // policy: this one passes every viewer header but Host.
    expect(distributionConfig().DefaultCacheBehavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac'); // Managed-AllViewerExceptHostHeader
  });

  it('copies Host into x-viewer-host and overwrites whatever the viewer sent in it', () => {
    expect(run({ host: { value: 'd111111abcdef8.cloudfront.net' } })[VIEWER_HOST_HEADER]).toEqual({ value: 'd111111abcdef8.cloudfront.net' });
    const forged = run({ host: { value: 'tracking.example.cl' }, [VIEWER_HOST_HEADER]: { value: 'evil.example' } });
    expect(forged[VIEWER_HOST_HEADER]).toEqual({ value: 'tracking.example.cl' });
    expect(forged.host).toEqual({ value: 'tracking.example.cl' });
    expect(run({ [VIEWER_HOST_HEADER]: { value: 'evil.example' } })[VIEWER_HOST_HEADER]).toBeUndefined();
  });
});

describe('tracking tokens and errors at the edge', () => {
  it('never caches a 404, so a fresh order’s link works as soon as the projection has it', () => {
    expect(distributionConfig().CustomErrorResponses).toEqual([{ ErrorCode: 404, ErrorCachingMinTTL: 0 }]);
  });

  it('logs access without URIs, query strings, referrers or cookies (standard logging v2), and no legacy log', () => {
    expect(distributionConfig().Logging).toBeUndefined();
    // The delivery is in the us-east-1 logs stack (CloudWatch Logs takes a CloudFront source only
    // there), reading the distribution and the bucket from this stack (exports, in one region).
    const edgeOne = (type: string): [string, Resource] => {
      expect(synth.resources(type), type).toEqual([]);
      const found = synth.edgeResources(type);
      expect(found, type).toHaveLength(1);
      return found[0]!;
    };
    const [sourceId, source] = edgeOne('AWS::Logs::DeliverySource');
    expect(source.Properties.LogType).toBe('ACCESS_LOGS');
    expect(JSON.stringify(source.Properties.ResourceArn)).toContain(`":distribution/",{"Fn::ImportValue":"DeliveryOps:ExportsOutputRef${logicalId(synth.stack.edge.distribution)}`);
    const [destinationId, destination] = edgeOne('AWS::Logs::DeliveryDestination');
    expect(JSON.stringify(destination.Properties.DestinationResourceArn)).toContain(`"DeliveryOps:ExportsOutputFnGetAtt${logicalId(synth.stack.edge.logBucket)}Arn`);
    const [, delivery] = edgeOne('AWS::Logs::Delivery') as [string, Resource & { DependsOn?: string[] }];
    expect(delivery.Properties.DeliverySourceName).toEqual(source.Properties.Name);
    expect(delivery.DependsOn).toContain(sourceId);
    expect(delivery.Properties.DeliveryDestinationArn).toEqual({ 'Fn::GetAtt': [destinationId, 'Arn'] });
    expect(delivery.Properties.RecordFields).toEqual(ACCESS_LOG_FIELDS);
    for (const field of ['cs-uri-stem', 'cs-uri-query', 'cs(Referer)', 'cs(Cookie)']) expect(delivery.Properties.RecordFields).not.toContain(field);
    expect(delivery.Properties.RecordFields).toContain('x-edge-request-id');
    const [, bucketPolicy] = synth.resources('AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket).includes(logicalId(synth.stack.edge.logBucket)))!;
    const statement = (bucketPolicy.Properties.PolicyDocument.Statement as Record<string, any>[]).find((s) => s.Principal?.Service === 'delivery.logs.amazonaws.com');
    expect(statement).toMatchObject({ Effect: 'Allow', Action: 's3:PutObject', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } });
    // Exactly the one source of the edge logs stack, in us-east-1 whatever the bucket's region, in
    // CloudWatch Logs' form `delivery-source:NAME` (its name joins a prefix and the distribution id).
    const names = new TemplateNames(synth.template.toJSON() as never);
    const distributionId = names.ref(logicalId(synth.stack.edge.distribution));
    const sourceName = (source.Properties.Name['Fn::Join'] as [string, [string, unknown]])[1][0];
    expect(names.resolve(statement!.Condition.ArnLike['aws:SourceArn'])).toBe(`arn:aws:logs:us-east-1:${ACCOUNT}:delivery-source:${sourceName}-${distributionId}`);
  });

  it('answers WAF’s 429 outside the tracking page as a problem document naming CloudFront’s request id header', () => {
    const [[, acl]] = synth.edgeResources('AWS::WAFv2::WebACL');
    // The other JSON body is the common rules' 403 (test/infra/first-deploy.test.ts).
    const json = Object.values(acl.Properties.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>).filter((b) => b.ContentType === 'APPLICATION_JSON' && b.Content.includes('"status":429'));
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0]!.Content)).toMatchObject({ type: 'urn:delivery-ops:problem:rate_limited', status: 429, code: 'rate_limited', requestIdHeader: 'x-amz-cf-id' });
  });

  it('sends every path no operation has to the catch-all group, whose 404 is problem+json', () => {
    const catchAll = functionGroups.filter((g) => g.catchAll);
    expect(catchAll.map((g) => g.name)).toEqual(['meta']);
    const [, route] = synth.resources('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === '$default')!;
    const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
    const [, integration] = synth.resources('AWS::ApiGatewayV2::Integration').find(([id]) => id === integrationId)!;
    expect(integration.Properties.IntegrationUri['Fn::GetAtt'][0]).toBe(logicalId(synth.stack.functions.functionFor('meta')));
  });
});

describe('settings of the edge', () => {
  // Without bundling (the functions' code does not matter here), so these synths are quick.
  const quickStack = (context: Record<string, unknown>) => {
    const app = templateApp(context);
    return new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  };

  it('takes the tracking concurrency cap from the context key trackingConcurrency, the only API function with one', () => {
    const stack = quickStack({ trackingConcurrency: '7', accountConcurrency: '1000' });
    const tracking = stack.resolve(stack.getLogicalId(stack.functions.functionFor('tracking').node.defaultChild as CfnElement)) as string;
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
    expect(resources[tracking]!.Properties.ReservedConcurrentExecutions).toBe(7);
    for (const [id, fn] of Object.entries(resources).filter(([, r]) => r.Properties?.Environment?.Variables?.OIDC_ISSUER)) {
      expect(fn.Properties.ReservedConcurrentExecutions, id).toBe(id === tracking ? 7 : undefined);
    }
    // A synth in the test: seconds of CPU, more on a busy machine.
  }, 180_000);

  it('refuses a cap that is not a positive integer', () => {
    for (const value of ['0', '-1', '2.5', 'many']) expect(() => quickStack({ trackingConcurrency: value }), value).toThrow(/trackingConcurrency/);
  });
});
