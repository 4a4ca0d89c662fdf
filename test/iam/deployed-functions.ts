import { FUNCTION_NAME_METADATA } from '../../infra/constructs/service-function.ts';
import { TemplateNames, type Template } from './template-names.ts';

export interface PolicyDocument {
  Version?: string;
  Statement: Statement[];
}
export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

/** A call a function's role makes, with its resource as a concrete ARN. */
export interface ResolvedCall {
  fn: string;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** Made by Lambda on the function's behalf (logs, tracing, event source mappings), not by the handler. */
  platform?: boolean;
}

export interface DeployedFunction {
  name: string;
  logicalId: string;
  roleArn: string;
  /** The session ARN the function's calls carry. */
  principal: string;
  environment: Record<string, string>;
  policies: { name: string; policy: PolicyDocument }[];
  /** What Lambda itself does with the role: write logs, send traces, poll event sources. */
  platformCalls: ResolvedCall[];
}

/**
 * Lambdas aws-cdk-lib makes for itself and runs only while CloudFormation deploys (custom
 * resource providers, AwsCustomResource, log retention): no handler of ours runs in them.
 */
const CDK_DEPLOY_TIME_FUNCTION = /CustomResourceProvider|^AWS679f53fac002430cb0da5b7982bd2287|^LogRetention[0-9a-f]{32}/;

/**
 * Functions of ours whose AWS calls do not go through the recorded clients, each with the test
 * that holds them instead. Their roles are left out of the check rather than reported unused.
 */
export const UNRECORDED_FUNCTIONS: Record<string, string> = {
  'origin-secret-rotation':
    'a Secrets Manager rotation Lambda (no request path): test/unit/edge/origin-secret-rotation.test.ts drives its real SDK clients against Secrets Manager and CloudFront stand-ins, and test/infra/edge.test.ts asserts its grants',
};

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Lambda's own use of a role for an event source mapping, by the kind of source. */
const mappingCalls = (source: string): [string, string][] => {
  if (/:dynamodb:.*\/stream\//.test(source)) {
    return [
      ['dynamodb:DescribeStream', source],
      ['dynamodb:GetRecords', source],
      ['dynamodb:GetShardIterator', source],
      ['dynamodb:ListStreams', '*'],
    ];
  }
  if (source.includes(':sqs:')) {
    return ['ReceiveMessage', 'DeleteMessage', 'ChangeMessageVisibility', 'GetQueueAttributes', 'GetQueueUrl'].map((a) => [`sqs:${a}`, source]);
  }
  throw new Error(`no rule for an event source mapping on ${source}: add one to test/iam/deployed-functions.ts`);
};

/** An on-failure destination: the mapping sends the notice with the function's role. */
const destinationCalls = (destination: string): [string, string][] => {
  if (destination.includes(':sqs:')) return ['SendMessage', 'GetQueueAttributes', 'GetQueueUrl'].map((a) => [`sqs:${a}`, destination]);
  throw new Error(`no rule for an on-failure destination ${destination}: add one to test/iam/deployed-functions.ts`);
};

/**
 * Every Lambda of the template by the manifest name ServiceFunction puts in its metadata, with
 * its role's policies and environment resolved to concrete names. A function without the name
 * cannot be checked; it is reported in `unnamed`.
 */
export const deployedFunctions = (template: Template): { functions: Map<string, DeployedFunction>; unnamed: string[]; names: TemplateNames } => {
  const names = new TemplateNames(template);
  const resources = Object.entries(template.Resources);
  const functions = new Map<string, DeployedFunction>();
  const unnamed: string[] = [];
  for (const [logicalId, resource] of resources) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const name = resource.Metadata?.[FUNCTION_NAME_METADATA] as string | undefined;
    if (!name) {
      if (!CDK_DEPLOY_TIME_FUNCTION.test(logicalId)) unnamed.push(logicalId);
      continue;
    }
    if (name in UNRECORDED_FUNCTIONS) continue;
    const roleRef = resource.Properties.Role;
    const roleId: string = roleRef?.['Fn::GetAtt']?.[0];
    if (!roleId) throw new Error(`${logicalId}: the role is not a role of this template`);
    const role = template.Resources[roleId];
    const isRole = (r: unknown) => (r as { Ref?: string })?.Ref === roleId;
    const policies = [
      ...list(role.Properties?.Policies).map((p: { PolicyName: string; PolicyDocument: unknown }) => ({ name: p.PolicyName, policy: names.resolve(p.PolicyDocument) })),
      ...resources
        .filter(([, r]) => (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') && list(r.Properties?.Roles).some(isRole))
        .map(([id, r]) => ({ name: id, policy: names.resolve(r.Properties.PolicyDocument) })),
    ];
    if (list(role.Properties?.ManagedPolicyArns).length > 0) throw new Error(`${roleId}: AWS managed policies cannot be checked offline; grant with statements`);

    const platform: [string, string][] = [];
    const logGroup = resource.Properties.LoggingConfig?.LogGroup;
    if (logGroup) {
      const logArn = names.getAtt(logGroup.Ref, 'Arn').replace(/:\*$/, ':log-stream:2026/01/01/[$LATEST]0');
      platform.push(['logs:CreateLogStream', logArn], ['logs:PutLogEvents', logArn]);
    }
    if (resource.Properties.TracingConfig?.Mode === 'Active') platform.push(['xray:PutTraceSegments', '*'], ['xray:PutTelemetryRecords', '*']);
    for (const [, mapping] of resources) {
      if (mapping.Type !== 'AWS::Lambda::EventSourceMapping' || mapping.Properties.FunctionName?.Ref !== logicalId) continue;
      platform.push(...mappingCalls(names.resolve(mapping.Properties.EventSourceArn)));
      const destination = mapping.Properties.DestinationConfig?.OnFailure?.Destination;
      if (destination) platform.push(...destinationCalls(names.resolve(destination)));
    }

    const roleArn = names.getAtt(roleId, 'Arn');
    functions.set(name, {
      name,
      logicalId,
      roleArn,
      principal: roleArn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/') + `/${name}`,
      environment: names.resolve(resource.Properties.Environment?.Variables ?? {}),
      policies,
      platformCalls: platform.map(([action, arn]) => ({ fn: name, action, resource: arn, context: {}, platform: true })),
    });
  }
  return { functions, unnamed, names };
};
