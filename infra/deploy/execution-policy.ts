/**
 * The CloudFormation execution policy the project ships (issue 33, item 5): what CloudFormation may
 * do in the account when it deploys these stacks, instead of the AdministratorAccess `cdk bootstrap`
 * gives by default. One IAM managed policy (IAM is global), attached to the CDK bootstrap's
 * CloudFormation execution role in both regions by
 * `cdk bootstrap --cloudformation-execution-policies <its ARN>`.
 *
 * Built from the resource types the stacks create: test/infra/execution-policy.test.ts fails on a
 * type of the synthesized templates that is not listed here, and on an action IAM does not know.
 * Names that CloudFormation makes start with the stack name, `DeliveryOps` in every deployment
 * (infra/deployment.ts), so IAM roles, functions, queues, tables, topics, secrets and log groups are
 * limited to that prefix; other resources have ids, not names, to scope by.
 */

export const EXECUTION_POLICY_NAME = 'DeliveryOpsCloudFormationExecution';

/** Every name this project's stacks give (or CloudFormation gives their resources) starts with it. */
const PREFIX = 'DeliveryOps';

/** Reading is harmless and keeps the policy under IAM's 6,144 characters: every Get, Describe and List of a service. */
const read = (service: string) => [`${service}:Get*`, ...(service === 'lambda' ? [] : [`${service}:Describe*`]), `${service}:List*`];
const changes = (service: string, ...nouns: string[]) => nouns.flatMap((noun) => ['Create', 'Delete', 'Update'].map((verb) => `${service}:${verb}${noun}`));
const tags = (service: string) => [`${service}:TagResource`, `${service}:UntagResource`];

/** The actions CloudFormation needs for each resource type, and the resources they may touch (`*` filled in later). */
export const RESOURCE_TYPE_ACTIONS: Record<string, { actions: string[]; resources?: string[] }> = {
  'AWS::DynamoDB::Table': {
    actions: [...changes('dynamodb', 'Table'), 'dynamodb:UpdateTimeToLive', 'dynamodb:UpdateContinuousBackups', ...read('dynamodb'), ...tags('dynamodb')],
    resources: [`arn:aws:dynamodb:*:*:table/${PREFIX}*`],
  },
  'AWS::Lambda::Function': {
    actions: ['lambda:CreateFunction', 'lambda:DeleteFunction', 'lambda:UpdateFunctionCode', 'lambda:UpdateFunctionConfiguration', 'lambda:PutFunctionConcurrency', 'lambda:DeleteFunctionConcurrency', 'lambda:PublishVersion', 'lambda:InvokeFunction', ...read('lambda'), ...tags('lambda')],
    resources: [`arn:aws:lambda:*:*:function:${PREFIX}*`],
  },
  'AWS::Lambda::Permission': { actions: ['lambda:AddPermission', 'lambda:RemovePermission', 'lambda:GetPolicy'], resources: [`arn:aws:lambda:*:*:function:${PREFIX}*`] },
  'AWS::Lambda::EventInvokeConfig': { actions: ['lambda:PutFunctionEventInvokeConfig', 'lambda:UpdateFunctionEventInvokeConfig', 'lambda:DeleteFunctionEventInvokeConfig', 'lambda:GetFunctionEventInvokeConfig'], resources: [`arn:aws:lambda:*:*:function:${PREFIX}*`] },
  // Event source mappings have ids made by Lambda: no name to scope by.
  'AWS::Lambda::EventSourceMapping': { actions: [...changes('lambda', 'EventSourceMapping'), 'lambda:GetEventSourceMapping', 'lambda:ListEventSourceMappings'] },
  'AWS::IAM::Role': {
    actions: ['iam:CreateRole', 'iam:DeleteRole', 'iam:GetRole', 'iam:UpdateRole', 'iam:UpdateAssumeRolePolicy', 'iam:TagRole', 'iam:UntagRole', 'iam:ListRoleTags', 'iam:AttachRolePolicy', 'iam:DetachRolePolicy', 'iam:ListAttachedRolePolicies', 'iam:ListRolePolicies', 'iam:PassRole'],
    resources: [`arn:aws:iam::*:role/${PREFIX}*`],
  },
  'AWS::IAM::Policy': { actions: ['iam:PutRolePolicy', 'iam:DeleteRolePolicy', 'iam:GetRolePolicy'], resources: [`arn:aws:iam::*:role/${PREFIX}*`] },
  'AWS::Logs::LogGroup': { actions: ['logs:CreateLogGroup', 'logs:DeleteLogGroup', 'logs:PutRetentionPolicy', 'logs:DeleteRetentionPolicy', ...read('logs'), ...tags('logs')], resources: [`arn:aws:logs:*:*:log-group:${PREFIX}*`] },
  // CloudFront's source needs the caller's leave to deliver the distribution's logs.
  'AWS::Logs::DeliverySource': { actions: ['logs:PutDeliverySource', 'logs:DeleteDeliverySource', 'cloudfront:AllowVendedLogDeliveryForResource', ...read('logs'), ...tags('logs')] },
  'AWS::Logs::DeliveryDestination': { actions: ['logs:PutDeliveryDestination', 'logs:DeleteDeliveryDestination', ...read('logs'), ...tags('logs')] },
  // The delivery reads the bucket's policy (CloudWatch Logs checks it; with the statement in the template it adds none).
  'AWS::Logs::Delivery': { actions: ['logs:CreateDelivery', 'logs:DeleteDelivery', 'logs:UpdateDeliveryConfiguration', 's3:GetBucketPolicy', ...read('logs'), ...tags('logs')] },
  'AWS::ApiGatewayV2::Api': { actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PUT', 'apigateway:PATCH', 'apigateway:DELETE'] },
  'AWS::ApiGatewayV2::Stage': { actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PATCH', 'apigateway:DELETE', 'logs:CreateLogDelivery', 'logs:UpdateLogDelivery', 'logs:DeleteLogDelivery', 'logs:PutResourcePolicy', ...read('logs')] },
  'AWS::ApiGatewayV2::Route': { actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PATCH', 'apigateway:DELETE'] },
  'AWS::ApiGatewayV2::Integration': { actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PATCH', 'apigateway:DELETE'] },
  // The distribution's origin header resolves the secret's value ({{resolve:secretsmanager:...}}).
  'AWS::SecretsManager::Secret': { actions: ['secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret', 'secretsmanager:DescribeSecret', 'secretsmanager:UpdateSecret', 'secretsmanager:GetRandomPassword', 'secretsmanager:GetSecretValue', ...tags('secretsmanager')], resources: [`arn:aws:secretsmanager:*:*:secret:*`] },
  'AWS::SecretsManager::RotationSchedule': { actions: ['secretsmanager:RotateSecret', 'secretsmanager:CancelRotateSecret', 'secretsmanager:DescribeSecret'], resources: [`arn:aws:secretsmanager:*:*:secret:*`] },
  'AWS::SecretsManager::ResourcePolicy': { actions: ['secretsmanager:PutResourcePolicy', 'secretsmanager:DeleteResourcePolicy', 'secretsmanager:GetResourcePolicy', 'secretsmanager:ValidateResourcePolicy'], resources: [`arn:aws:secretsmanager:*:*:secret:*`] },
  'AWS::S3::Bucket': { actions: ['s3:CreateBucket', 's3:DeleteBucket', 's3:ListBucket', 's3:GetBucket*', 's3:PutBucket*', 's3:GetEncryptionConfiguration', 's3:PutEncryptionConfiguration', 's3:GetLifecycleConfiguration', 's3:PutLifecycleConfiguration'], resources: [`arn:aws:s3:::${PREFIX.toLowerCase()}*`] },
  'AWS::S3::BucketPolicy': { actions: ['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy'], resources: [`arn:aws:s3:::${PREFIX.toLowerCase()}*`] },
  'AWS::CloudFront::Distribution': { actions: ['cloudfront:CreateDistribution', 'cloudfront:UpdateDistribution', 'cloudfront:DeleteDistribution', ...read('cloudfront'), ...tags('cloudfront'), 'wafv2:GetWebACL', 'wafv2:AssociateWebACL', 'wafv2:DisassociateWebACL'] },
  'AWS::CloudFront::Function': { actions: [...changes('cloudfront', 'Function'), 'cloudfront:PublishFunction', ...read('cloudfront')] },
  'AWS::CloudFront::CachePolicy': { actions: [...changes('cloudfront', 'CachePolicy'), ...read('cloudfront')] },
  'AWS::CloudFront::OriginRequestPolicy': { actions: [...changes('cloudfront', 'OriginRequestPolicy'), ...read('cloudfront')] },
  'AWS::CloudFront::ResponseHeadersPolicy': { actions: [...changes('cloudfront', 'ResponseHeadersPolicy'), ...read('cloudfront')] },
  'AWS::SQS::Queue': { actions: ['sqs:CreateQueue', 'sqs:DeleteQueue', 'sqs:GetQueueAttributes', 'sqs:SetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:TagQueue', 'sqs:UntagQueue', 'sqs:ListQueueTags'], resources: [`arn:aws:sqs:*:*:${PREFIX}*`] },
  'AWS::SQS::QueuePolicy': { actions: ['sqs:SetQueueAttributes', 'sqs:GetQueueAttributes'], resources: [`arn:aws:sqs:*:*:${PREFIX}*`] },
  'AWS::Scheduler::ScheduleGroup': { actions: ['scheduler:CreateScheduleGroup', 'scheduler:DeleteScheduleGroup', 'scheduler:GetScheduleGroup', 'scheduler:TagResource', 'scheduler:UntagResource', 'scheduler:ListTagsForResource'], resources: [`arn:aws:scheduler:*:*:schedule-group/${PREFIX}*`] },
  // Keys have ids, not names. The key policy's own statements keep the account in (infra/constructs/webhook-pipeline.ts).
  'AWS::KMS::Key': { actions: ['kms:CreateKey', 'kms:PutKeyPolicy', 'kms:EnableKeyRotation', 'kms:DisableKeyRotation', 'kms:ScheduleKeyDeletion', 'kms:UpdateKeyDescription', 'kms:EnableKey', 'kms:DisableKey', ...read('kms'), ...tags('kms')] },
  'AWS::Events::Rule': { actions: ['events:PutRule', 'events:DeleteRule', 'events:DescribeRule', 'events:EnableRule', 'events:DisableRule', 'events:PutTargets', 'events:RemoveTargets', 'events:ListTargetsByRule', 'events:TagResource', 'events:UntagResource'], resources: [`arn:aws:events:*:*:rule/${PREFIX}*`] },
  'AWS::CloudWatch::Alarm': { actions: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms', 'cloudwatch:DescribeAlarms', 'cloudwatch:TagResource', 'cloudwatch:UntagResource', 'cloudwatch:ListTagsForResource'], resources: [`arn:aws:cloudwatch:*:*:alarm:${PREFIX}*`] },
  'AWS::SNS::Topic': { actions: ['sns:CreateTopic', 'sns:DeleteTopic', 'sns:GetTopicAttributes', 'sns:SetTopicAttributes', 'sns:TagResource', 'sns:UntagResource', 'sns:ListTagsForResource'], resources: [`arn:aws:sns:*:*:${PREFIX}*`] },
  'AWS::SNS::TopicPolicy': { actions: ['sns:SetTopicAttributes', 'sns:GetTopicAttributes'], resources: [`arn:aws:sns:*:*:${PREFIX}*`] },
  'AWS::SNS::Subscription': { actions: ['sns:Subscribe', 'sns:Unsubscribe', 'sns:GetSubscriptionAttributes', 'sns:SetSubscriptionAttributes', 'sns:ListSubscriptionsByTopic'], resources: [`arn:aws:sns:*:*:${PREFIX}*`] },
  'AWS::WAFv2::WebACL': { actions: [...changes('wafv2', 'WebACL'), ...read('wafv2'), ...tags('wafv2')] },
  // CDK's cross-region references: CloudFormation invokes their handler (a Lambda above), which writes and reads SSM with its own role.
  'Custom::CrossRegionExportWriter': { actions: ['lambda:InvokeFunction'], resources: [`arn:aws:lambda:*:*:function:${PREFIX}*`] },
  'Custom::CrossRegionExportReader': { actions: ['lambda:InvokeFunction'], resources: [`arn:aws:lambda:*:*:function:${PREFIX}*`] },
  'AWS::CDK::Metadata': { actions: [] },
};

/** What every deploy needs beside the resources: the bootstrap version parameter and the bundles in the assets bucket. */
const DEPLOY_ACTIONS = [
  { actions: ['ssm:GetParameters', 'ssm:GetParameter'], resources: ['arn:aws:ssm:*:*:parameter/cdk-bootstrap/*'] },
  // Lambda reads the function's code from the CDK assets bucket with the caller's permissions.
  { actions: ['s3:GetObject', 's3:GetObjectVersion'], resources: ['arn:aws:s3:::cdk-*-assets-*/*'] },
];

/** The policy document for an account: one statement per set of resources, actions sorted. */
export const executionPolicy = () => {
  const byResources = new Map<string, Set<string>>();
  const add = (actions: string[], resources: string[] = ['*']) => {
    const key = JSON.stringify([...resources].sort());
    const set = byResources.get(key) ?? new Set<string>();
    for (const a of actions) set.add(a);
    byResources.set(key, set);
  };
  for (const { actions, resources } of Object.values(RESOURCE_TYPE_ACTIONS)) if (actions.length > 0) add(actions, resources);
  for (const { actions, resources } of DEPLOY_ACTIONS) add(actions, resources);
  return {
    Version: '2012-10-17',
    Statement: [...byResources.entries()].map(([resources, actions]) => {
      const list = JSON.parse(resources) as string[];
      return { Effect: 'Allow', Action: [...actions].sort(), Resource: list.length === 1 ? list[0] : list };
    }),
  };
};

/** The file `npm run deploy` creates the policy from (aws iam create-policy --policy-document file://...). */
export const EXECUTION_POLICY_FILE = 'infra/deploy/cloudformation-execution-policy.json';

export const executionPolicyArn = (account: string): string => `arn:aws:iam::${account}:policy/${EXECUTION_POLICY_NAME}`;
