import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CfnPermission, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function.ts';

export interface OriginSecretProps {
  serviceName: string;
  /** @default 30 days */
  rotateEvery?: Duration;
}

/**
 * The secret CloudFront sends to the API in x-origin-verify (issue 7, item 2), and its rotation:
 * a Lambda that makes a new value, promotes it, waits until every API container may re-read it,
 * then sets it on the distribution (functions/edge/origin-secret-rotation.ts). The API accepts
 * AWSCURRENT and AWSPREVIOUS, so edges still on the old configuration keep working.
 */
export class OriginSecret extends Construct {
  readonly secret: Secret;
  readonly rotation: ServiceFunction;
  private readonly rotateEvery: Duration;

  constructor(scope: Construct, id: string, props: OriginSecretProps) {
    super(scope, id);
    this.rotateEvery = props.rotateEvery ?? Duration.days(30);
    this.secret = new Secret(this, 'Secret', {
      description: 'Origin secret: CloudFront sends it in x-origin-verify; the API refuses requests without it (rotated).',
      // Header-safe; rotations replace it with 256 random bits in base64url.
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    });
    this.rotation = new ServiceFunction(this, 'Rotation', {
      name: 'origin-secret-rotation',
      entry: 'functions/edge/origin-secret-rotation.ts',
      environment: { POWERTOOLS_SERVICE_NAME: props.serviceName },
      // Waits 15 s between promotion and the CloudFront update.
      timeout: Duration.seconds(60),
      memorySize: 256,
    });
  }

  /**
   * The distribution whose origin header the rotation keeps equal to AWSCURRENT, and the ARN of
   * the web ACL its configuration names. UpdateDistribution sends that configuration back whole,
   * and CloudFront then checks that the caller may read the web ACL it names (it refuses with
   * InvalidWebACLId, "Unable to verify read permissions on Web ACL"): wafv2:GetWebACL on it.
   */
  rotateOn(distribution: IDistribution, webAclArn: string): void {
    const fn = this.rotation.function;
    fn.addEnvironment('DISTRIBUTION_ID', distribution.distributionId);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution'],
        resources: [Stack.of(this).formatArn({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: distribution.distributionId })],
      }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ['wafv2:GetWebACL'], resources: [webAclArn] }));
    this.secret.addRotationSchedule('Schedule', { rotationLambda: fn, automaticallyAfter: this.rotateEvery, rotateImmediatelyOnUpdate: false });
    // CDK's invoke permission names Secrets Manager alone: any account's secret could have it
    // rotate (a confused deputy). Secrets Manager's guide recommends aws:SourceAccount; this
    // function rotates one secret, so its ARN too.
    const invokes = fn.node.findAll().filter((c): c is CfnPermission => c instanceof CfnPermission && c.principal === 'secretsmanager.amazonaws.com');
    if (invokes.length !== 1) throw new Error(`expected one Secrets Manager invoke permission on the rotation function, found ${invokes.length}`);
    invokes[0]!.sourceAccount = Stack.of(this).account;
    invokes[0]!.sourceArn = this.secret.secretArn;
    Validations.of(this.rotation.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Besides X-Ray, rotation makes the new value with secretsmanager:GetRandomPassword, which has no resource-level permissions; every other action is on this secret or this distribution only.',
    });
  }

  /** What the API functions need for the origin check: the setting and GetSecretValue only. */
  grantCheck(fn: LambdaFunction): void {
    fn.addEnvironment('ORIGIN_VERIFY_SECRET_ARN', this.secret.secretArn);
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.secret.secretArn] }));
  }
}
