import { fileURLToPath } from 'node:url';
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { AddBehaviorOptions, ICachePolicy } from 'aws-cdk-lib/aws-cloudfront';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/edge-headers.ts';
import { EDGE_REGION } from './web-acl.ts';
import { deployedName } from '../deployment.ts';

// Where these moved (the web ACL and the log delivery live in us-east-1 stacks); tests import them from here.
export { COMMON_RULES_BLOCKED, COMMON_RULES_COUNTED } from './web-acl.ts';
export { ACCESS_LOG_FIELDS } from './access-log-delivery.ts';

export interface EdgeProps {
  /** Host name of the HTTP API, without scheme. */
  apiDomainName: string;
  /** ARN of the CLOUDFRONT web ACL (EdgeWebAcl, in us-east-1). */
  webAclArn: string;
  /** CloudFront sends its AWSCURRENT value in x-origin-verify; the API refuses requests without it. */
  originSecret: ISecret;
}

/** The viewer-request function that passes the viewer's Host on (infra/edge-functions/viewer-host.js). */
export const VIEWER_HOST_FUNCTION_FILE = fileURLToPath(new URL('../edge-functions/viewer-host.js', import.meta.url));

/**
 * A 404 of a tracking link may be a fresh order the projection has not reached yet: never keep
 * it at the edge. The origin also sends it with no-store; this covers any 404 without it.
 */
export const NOT_FOUND_CACHE_SECONDS = 0;

/**
 * The public entry: one CloudFront distribution, with the WAF web ACL of the edge stack, in front
 * of the HTTP API, and the bucket its access logs go to (in the API's region).
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  readonly logBucket: Bucket;
  /** The API origin, shared by the default behaviour and any behaviour added later. */
  readonly apiOrigin: HttpOrigin;
  readonly viewerHost: CloudFrontFunction;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);

    this.logBucket = new Bucket(this, 'AccessLogs', {
      // Standard logging v2 delivers as the bucket owner: no ACLs needed.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      // Logs outlive the stack; a failed first create has none, and its rollback removes the bucket.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket is the destination of the CloudFront access logs; logging access to it would only need one more bucket with the same finding.',
    });

    this.apiOrigin = new HttpOrigin(props.apiDomainName, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // A dynamic reference: CloudFormation resolves it at deploy time, the template holds none.
      // The rotation Lambda updates it in place afterwards (OriginSecret).
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.secretValue.unsafeUnwrap() },
    });

    this.viewerHost = new CloudFrontFunction(this, 'ViewerHost', {
      functionName: deployedName(this, 'viewer-host'),
      comment: 'Passes the viewer Host on in x-viewer-host (absolute tracking links)',
      code: FunctionCode.fromFile({ filePath: VIEWER_HOST_FUNCTION_FILE }),
      runtime: FunctionRuntime.JS_2_0,
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'delivery-ops API',
      defaultBehavior: {
        origin: this.apiOrigin,
        ...apiBehavior(CachePolicy.CACHING_DISABLED),
        functionAssociations: [{ function: this.viewerHost, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      // In the edge stack (us-east-1): a cross-region reference when the API lives elsewhere.
      webAclId: props.webAclArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      errorResponses: [{ httpStatus: 404, ttl: Duration.seconds(NOT_FOUND_CACHE_SECONDS) }],
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Tenants deliver wherever they operate and recipients open tracking links from anywhere; there is no country list to allow or deny.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason: 'Access logs go through standard logging v2 (a CloudWatch Logs delivery to the access-log bucket, without URIs), which the rule does not see; legacy logging would write every tracking token.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'No custom domain yet: with the default cloudfront.net certificate CloudFront fixes the viewer TLS policy. Add the certificate and SecurityPolicyProtocol.TLS_V1_2_2021 with the domain.',
    });
  }

  /**
   * Admits the one CloudWatch Logs delivery source (in us-east-1, AccessLogDelivery in the edge
   * logs stack) that sends the distribution's access logs: its only writer. CloudWatch Logs names
   * a source `arn:<partition>:logs:<region>:<account>:delivery-source:<name>` (a colon, not the
   * slash of formatArn's default); a condition in another form matches no source, and the
   * delivery is refused, or works only through a statement CloudWatch Logs appends outside the
   * template, which the next deploy removes.
   */
  admitLogDelivery(sourceName: string): void {
    const stack = Stack.of(this);
    this.logBucket.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [this.logBucket.arnForObjects(`AWSLogs/${stack.account}/*`)],
        conditions: {
          StringEquals: { 's3:x-amz-acl': 'bucket-owner-full-control', 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': deliverySourceArn(stack, sourceName) },
        },
      }),
    );
  }

  /**
   * Extension point for cached areas, for example the public tracking pages `/t/*` and
   * `/v1/track/*`: same API origin, same viewer settings, but a cache policy of the caller's
   * choice. Paths without such a behaviour keep the uncached default.
   */
  addApiBehavior(pathPattern: string, cachePolicy: ICachePolicy, options: Partial<AddBehaviorOptions> = {}): void {
    this.distribution.addBehavior(pathPattern, this.apiOrigin, { ...apiBehavior(cachePolicy), ...options });
  }
}

/** The ARN CloudWatch Logs gives a delivery source of this account in us-east-1 (the only region that takes CloudFront's). */
export const deliverySourceArn = (stack: Stack, sourceName: string): string =>
  stack.formatArn({ service: 'logs', region: EDGE_REGION, resource: 'delivery-source', resourceName: sourceName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });

const apiBehavior = (cachePolicy: ICachePolicy): AddBehaviorOptions => ({
  viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
  allowedMethods: AllowedMethods.ALLOW_ALL,
  cachePolicy,
  // With caching disabled this policy also passes Authorization on; Host must stay out, or
  // API Gateway would see the distribution's name instead of its own. It also carries
  // CloudFront-Viewer-Address, the viewer the per-address limits count (API Gateway sees the edge).
  originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
  responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
  compress: true,
});
