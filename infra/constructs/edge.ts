import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { AddBehaviorOptions, ICachePolicy } from 'aws-cdk-lib/aws-cloudfront';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface EdgeProps {
  /** Host name of the HTTP API, without scheme. */
  apiDomainName: string;
  /** Requests one client address may make per window before WAF answers 429. */
  rateLimitPerIp: number;
  /** WAF accepts 60, 120, 300 or 600. @default 60 */
  rateWindowSeconds?: 60 | 120 | 300 | 600;
}

const RATE_LIMITED_BODY = 'rate-limited';
const RATE_LIMITED_PAGE = 'rate-limited-page';

/** Requests for the tracking page: a recipient's browser gets an HTML 429, everything else JSON. */
const trackingPage: CfnWebACL.StatementProperty = {
  byteMatchStatement: {
    fieldToMatch: { uriPath: {} },
    positionalConstraint: 'STARTS_WITH',
    searchString: '/t/',
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
};

/**
 * The public entry: one CloudFront distribution with a WAF web ACL in front of the HTTP API.
 * The ACL has scope CLOUDFRONT, which AWS accepts only in us-east-1 (see docs/cloud-stack.md).
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  readonly webAcl: CfnWebACL;
  readonly logBucket: Bucket;
  /** The API origin, shared by the default behaviour and any behaviour added later. */
  readonly apiOrigin: HttpOrigin;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    const window = props.rateWindowSeconds ?? 60;

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('delivery-ops-edge'),
      customResponseBodies: {
        [RATE_LIMITED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            type: 'about:blank',
            title: 'Too Many Requests',
            status: 429,
            code: 'rate_limited',
            detail: `Too many requests from this address; retry after ${window} seconds.`,
          }),
        },
        [RATE_LIMITED_PAGE]: {
          contentType: 'TEXT_HTML',
          content: `<!doctype html><html lang="es"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Demasiadas solicitudes</title><body style="font-family:system-ui,sans-serif;margin:2rem;max-width:32rem"><h1>Demasiadas solicitudes</h1><p>Vuelve a abrir el enlace en ${window} segundos.</p><p lang="en">Too many requests: open the link again in ${window} seconds.</p></body></html>`,
        },
      },
      rules: [
        {
          name: 'RatePerClientIpTrackingPage',
          priority: 0,
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: props.rateLimitPerIp, evaluationWindowSec: window, scopeDownStatement: trackingPage },
          },
          action: rateLimited(RATE_LIMITED_PAGE, window),
          visibilityConfig: metrics('rate-per-client-ip-page'),
        },
        {
          name: 'RatePerClientIp',
          priority: 1,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.rateLimitPerIp,
              evaluationWindowSec: window,
              scopeDownStatement: { notStatement: { statement: trackingPage } },
            },
          },
          action: rateLimited(RATE_LIMITED_BODY, window),
          visibilityConfig: metrics('rate-per-client-ip'),
        },
        {
          name: 'AwsCommonRuleSet',
          priority: 2,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // The rule set blocks bodies over 8 KB; the API accepts up to 256 KiB and answers
              // 413 itself above that, so this one rule only counts.
              ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
            },
          },
          visibilityConfig: metrics('aws-common-rule-set'),
        },
      ],
    });

    this.logBucket = new Bucket(this, 'AccessLogs', {
      // CloudFront standard logging writes with ACLs, which BUCKET_OWNER_ENFORCED turns off.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This bucket is the destination of the CloudFront access logs; logging access to it would only need one more bucket with the same finding.',
    });

    this.apiOrigin = new HttpOrigin(props.apiDomainName, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'delivery-ops API',
      defaultBehavior: { origin: this.apiOrigin, ...apiBehavior(CachePolicy.CACHING_DISABLED) },
      webAclId: this.webAcl.attrArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });

    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Tenants deliver wherever they operate and recipients open tracking links from anywhere; there is no country list to allow or deny.',
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR4',
      reason:
        'No custom domain yet: with the default cloudfront.net certificate CloudFront fixes the viewer TLS policy. Add the certificate and SecurityPolicyProtocol.TLS_V1_2_2021 with the domain.',
    });
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

const apiBehavior = (cachePolicy: ICachePolicy): AddBehaviorOptions => ({
  viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
  allowedMethods: AllowedMethods.ALLOW_ALL,
  cachePolicy,
  // With caching disabled this policy also passes Authorization on; Host must stay out, or
  // API Gateway would see the distribution's name instead of its own.
  originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
  responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
  compress: true,
});

const rateLimited = (body: string, window: number): CfnWebACL.RuleActionProperty => ({
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: body,
      // After one whole window the address is below the limit again, whatever it sent.
      responseHeaders: [{ name: 'Retry-After', value: String(window) }],
    },
  },
});

const metrics = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});
