/**
 * Concrete names for a synthesized template, so that policies and recorded calls meet on the
 * same ARNs. Physical names are made up (the logical id, or the name a resource sets itself),
 * but always the same way: a Ref in a policy and a Ref in an environment variable resolve alike.
 */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';
export const PARTITION = 'aws';

type Json = any;
export type Template = { Resources: Record<string, { Type: string; Properties?: Json; Metadata?: Json }>; Parameters?: Record<string, { Default?: unknown }> };

/** The name a resource type gives itself when set (else CloudFormation makes one: the logical id here). */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Scheduler::ScheduleGroup': 'Name',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::SecretsManager::Secret': 'Name',
};

const arn = (service: string, resource: string, region = REGION, account = ACCOUNT): string => `arn:${PARTITION}:${service}:${region}:${account}:${resource}`;

export class TemplateNames {
  constructor(readonly template: Template) {}

  private resource(logicalId: string) {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`the template has no resource ${logicalId}`);
    return resource;
  }

  private physicalName(logicalId: string): string {
    const resource = this.resource(logicalId);
    const property = NAME_PROPERTY[resource.Type];
    const given = property ? resource.Properties?.[property] : undefined;
    return given === undefined ? logicalId : this.resolve(given);
  }

  ref(logicalId: string): string {
    const pseudo: Record<string, string> = { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION, 'AWS::Partition': PARTITION, 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': 'DeliveryOps' };
    if (logicalId in pseudo) return pseudo[logicalId];
    // A stack parameter (the OIDC issuer and audience): the value a deploy without overrides gives.
    const parameter = this.template.Parameters?.[logicalId];
    if (parameter && !this.template.Resources[logicalId]) return String(parameter.Default);
    const { Type } = this.resource(logicalId);
    const name = this.physicalName(logicalId);
    switch (Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`;
      case 'AWS::KMS::Key':
        return `key-${logicalId}`;
      case 'AWS::SNS::Topic':
        return this.getAtt(logicalId, 'TopicArn');
      case 'AWS::SecretsManager::Secret':
        return this.getAtt(logicalId, 'Arn');
      default:
        return name;
    }
  }

  getAtt(logicalId: string, attribute: string): string {
    const { Type } = this.resource(logicalId);
    const name = this.physicalName(logicalId);
    const key = `${Type}.${attribute}`;
    switch (key) {
      case 'AWS::DynamoDB::Table.Arn':
        return arn('dynamodb', `table/${name}`);
      case 'AWS::DynamoDB::Table.StreamArn':
        return arn('dynamodb', `table/${name}/stream/2026-01-01T00:00:00.000`);
      case 'AWS::SQS::Queue.Arn':
        return arn('sqs', name);
      case 'AWS::SQS::Queue.QueueName':
        return name;
      case 'AWS::KMS::Key.Arn':
        return arn('kms', `key/${this.ref(logicalId)}`);
      case 'AWS::IAM::Role.Arn':
        return `arn:${PARTITION}:iam::${ACCOUNT}:role/${name}`;
      case 'AWS::Logs::LogGroup.Arn':
        return arn('logs', `log-group:${name}:*`);
      case 'AWS::Scheduler::ScheduleGroup.Arn':
        return arn('scheduler', `schedule-group/${name}`);
      case 'AWS::Lambda::Function.Arn':
        return arn('lambda', `function:${name}`);
      case 'AWS::SecretsManager::Secret.Arn':
        return arn('secretsmanager', `secret:${name}-AbCdEf`);
      case 'AWS::SNS::Topic.TopicArn':
        return arn('sns', name);
      default:
        throw new Error(`no ARN rule for Fn::GetAtt ${logicalId}.${attribute} (${Type}): add one to test/iam/template-names.ts`);
    }
  }

  /** A template value with Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split and Fn::Sub resolved. */
  resolve(value: Json): any {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [fn] = keys;
      const arg = value[fn];
      switch (fn) {
        case 'Ref':
          return this.ref(arg);
        case 'Fn::GetAtt': {
          const [id, ...attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
          return this.getAtt(id, attribute.join('.'));
        }
        case 'Fn::Join':
          return (this.resolve(arg[1]) as string[]).join(arg[0]);
        case 'Fn::Select':
          return this.resolve(arg[1])[Number(this.resolve(arg[0]))];
        case 'Fn::Split':
          return String(this.resolve(arg[1])).split(arg[0]);
        case 'Fn::Sub': {
          const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
          return String(text).replace(/\$\{([^}]+)\}/g, (_m, name: string) => {
            if (vars[name] !== undefined) return this.resolve(vars[name]);
            const [id, ...attribute] = name.split('.');
            return attribute.length > 0 ? this.getAtt(id, attribute.join('.')) : this.ref(id);
          });
        }
      }
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(v)]));
  }
}

/** The ARN of the queue a queue URL names (what SQS authorises, whatever the SDK was given). */
export const queueArnOfUrl = (url: string): string => {
  const match = /^https:\/\/sqs\.([^.]+)\.amazonaws\.com\/(\d+)\/([^/]+)$/.exec(url);
  if (!match) throw new Error(`not an SQS queue URL: ${url}`);
  return arn('sqs', match[3], match[1], match[2]);
};

export const tableArn = (tableName: string): string => arn('dynamodb', `table/${tableName}`);
export const scheduleArn = (group: string, schedule: string): string => arn('scheduler', `schedule/${group}/${schedule}`);
export const kmsKeyArn = (keyIdOrArn: string): string => (keyIdOrArn.startsWith('arn:') ? keyIdOrArn : arn('kms', `key/${keyIdOrArn}`));
