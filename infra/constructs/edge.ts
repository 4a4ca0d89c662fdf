import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Duration, Fn, Names, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
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
import { CfnDelivery, CfnDeliveryDestination, CfnDeliverySource } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/edge-headers.ts';
import { problemTypeOf } from '../../shared/http/problem.ts';

export interface EdgeProps {
  /** Host name of the HTTP API, without scheme. */
  apiDomainName: string;
  /** Requests one client address may make per window before WAF answers 429. */
  rateLimitPerIp: number;
  /** WAF accepts 60, 120, 300 or 600. @default 60 */
  rateWindowSeconds?: 60 | 120 | 300 | 600;
  /** CloudFront sends its AWSCURRENT value in x-origin-verify; the API refuses requests without it. */
  originSecret: ISecret;
}

/**
 * Access-log fields (standard logging v2): the legacy format's fields without the URI, its query,
 * the referrer and cookies. The tracking routes carry their token in the path, and a log line is
 * not the place for a credential; the API's own access log names the route by its template.
 */
export const ACCESS_LOG_FIELDS = [
  'date', 'time', 'x-edge-location', 'sc-bytes', 'c-ip', 'cs-method', 'cs(Host)', 'sc-status', 'cs(User-Agent)',
  'x-edge-result-type', 'x-edge-request-id', 'x-host-header', 'cs-protocol', 'cs-bytes', 'time-taken', 'x-forwarded-for',
  'ssl-protocol', 'ssl-cipher', 'x-edge-response-result-type', 'cs-protocol-version', 'c-port', 'time-to-first-byte',
  'x-edge-detailed-result-type', 'sc-content-type', 'sc-content-len',
];

/** The viewer-request function that passes the viewer's Host on (infra/edge-functions/viewer-host.js). */
export const VIEWER_HOST_FUNCTION_FILE = fileURLToPath(new URL('../edge-functions/viewer-host.js', import.meta.url));

/**
 * A 404 of a tracking link may be a fresh order the projection has not reached yet: never keep
 * it at the edge. The origin also sends it with no-store; this covers any 404 without it.
 */
export const NOT_FOUND_CACHE_SECONDS = 0;

const RATE_LIMITED_BODY = 'rate-limited';
const RATE_LIMITED_PAGE = 'rate-limited-page';
const REQUEST_BLOCKED_BODY = 'request-blocked';

/**
 * Rules of AWSManagedRulesCommonRuleSet that would refuse callers the API serves: they only count
 * (metrics and sampled requests show what they would have refused), and the API's own validation
 * answers such requests.
 */
export const COMMON_RULES_COUNTED: Readonly<Record<string, string>> = {
  NoUserAgent_HEADER: "The billing provider's notices and tenants' integrations may come without a User-Agent.",
  GenericRFI_BODY: 'A webhook destination is a URL in the body, and it may name its host by IP address; the destination rules in the function decide.',
  GenericRFI_QUERYARGUMENTS: 'A query argument may carry a URL with an IP address (a return address); validation decides.',
  SizeRestrictions_QUERYSTRING: 'List filters and page cursors make query strings longer than 2 KB; the API limits each parameter itself.',
  SizeRestrictions_BODY: 'The API accepts bodies up to 256 KiB and answers 413 itself above that; the rule refuses above 8 KB.',
};

/**
 * The other rules of the set (AWS's list for version 1.x). Each is named so its refusal can carry
 * a problem document: a managed rule's own block is WAF's bare 403. A rule AWS adds later answers
 * the bare 403 until it is listed here (or counted above).
 */
export const COMMON_RULES_BLOCKED = [
  'UserAgent_BadBots_HEADER',
  'SizeRestrictions_Cookie_HEADER',
  'SizeRestrictions_URIPATH',
  'EC2MetaDataSSRF_BODY',
  'EC2MetaDataSSRF_COOKIE',
  'EC2MetaDataSSRF_URIPATH',
  'EC2MetaDataSSRF_QUERYARGUMENTS',
  'GenericLFI_QUERYARGUMENTS',
  'GenericLFI_URIPATH',
  'GenericLFI_BODY',
  'RestrictedExtensions_URIPATH',
  'RestrictedExtensions_QUERYARGUMENTS',
  'GenericRFI_URIPATH',
  'CrossSiteScripting_COOKIE',
  'CrossSiteScripting_QUERYARGUMENTS',
  'CrossSiteScripting_BODY',
  'CrossSiteScripting_URIPATH',
] as const;

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
  readonly viewerHost: CloudFrontFunction;
  readonly accessLogDelivery: CfnDelivery;

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
          // WAF bodies are fixed text, so the request id cannot be in it: CloudFront's own
          // x-amz-cf-id header, on this answer as on every other, names the request.
          content: JSON.stringify({
            type: problemTypeOf('rate_limited'),
            title: 'Too many requests',
            status: 429,
            code: 'rate_limited',
            detail: `Too many requests from this address; retry after ${window} seconds. The x-amz-cf-id response header identifies this request.`,
            requestIdHeader: 'x-amz-cf-id',
          }),
        },
        [REQUEST_BLOCKED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            type: problemTypeOf('request_blocked'),
            title: 'Forbidden',
            status: 403,
            code: 'request_blocked',
            detail: 'The request matched a rule of the web application firewall (a path, query, cookie or body that looks like an attack). The x-amz-cf-id response header identifies this request.',
            requestIdHeader: 'x-amz-cf-id',
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
              ruleActionOverrides: [
                ...Object.keys(COMMON_RULES_COUNTED).map((name) => ({ name, actionToUse: { count: {} } })),
                ...COMMON_RULES_BLOCKED.map((name) => ({ name, actionToUse: { block: { customResponse: { responseCode: 403, customResponseBodyKey: REQUEST_BLOCKED_BODY } } } })),
              ],
            },
          },
          visibilityConfig: metrics('aws-common-rule-set'),
        },
      ],
    });

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
      webAclId: this.webAcl.attrArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      errorResponses: [{ httpStatus: 404, ttl: Duration.seconds(NOT_FOUND_CACHE_SECONDS) }],
    });
    this.accessLogDelivery = this.logTo(this.logBucket);

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
   * Standard logging v2: CloudWatch Logs delivers the distribution's access logs to the bucket
   * with ACCESS_LOG_FIELDS only. The bucket lets the log delivery service write under AWSLogs/
   * for delivery sources of this account only.
   */
  private logTo(bucket: Bucket): CfnDelivery {
    const stack = Stack.of(this);
    // Both resources need a name, and a name that stays while a property that forces a
    // replacement changes would make the replacement collide with the old resource: the source's
    // name carries the distribution id, the destination's a digest of its settings.
    const name = Names.uniqueResourceName(this, { maxLength: 30, separator: '-' });
    const destinationSettings = { bucket: stack.getLogicalId(bucket.node.defaultChild as CfnElement), outputFormat: 'json' };
    const source = new CfnDeliverySource(this, 'AccessLogSource', {
      name: Fn.join('-', [name, this.distribution.distributionId]),
      logType: 'ACCESS_LOGS',
      resourceArn: stack.formatArn({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: this.distribution.distributionId }),
    });
    const destination = new CfnDeliveryDestination(this, 'AccessLogDestination', {
      name: `${name}-${createHash('sha256').update(JSON.stringify(destinationSettings)).digest('hex').slice(0, 8)}`,
      destinationResourceArn: bucket.bucketArn,
      outputFormat: destinationSettings.outputFormat,
    });
    bucket.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('delivery.logs.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [bucket.arnForObjects(`AWSLogs/${stack.account}/*`)],
        conditions: {
          StringEquals: { 's3:x-amz-acl': 'bucket-owner-full-control', 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'logs', resource: 'delivery-source', resourceName: '*' }) },
        },
      }),
    );
    const delivery = new CfnDelivery(this, 'AccessLogDelivery', {
      deliverySourceName: source.name,
      deliveryDestinationArn: destination.attrArn,
      recordFields: ACCESS_LOG_FIELDS,
    });
    delivery.node.addDependency(source, bucket.policy!);
    return delivery;
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
  // API Gateway would see the distribution's name instead of its own. It also carries
  // CloudFront-Viewer-Address, the viewer the per-address limits count (API Gateway sees the edge).
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
