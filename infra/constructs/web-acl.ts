import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { problemTypeOf } from '../../shared/http/problem.ts';

/** The only region where AWS accepts a CLOUDFRONT web ACL and a CloudFront log delivery source. */
export const EDGE_REGION = 'us-east-1';

export interface EdgeWebAclProps {
  /** Requests one client address may make per window before WAF answers 429. */
  rateLimitPerIp: number;
  /** WAF accepts 60, 120, 300 or 600. @default 60 */
  rateWindowSeconds?: 60 | 120 | 300 | 600;
}

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
 * The WAF web ACL of the CloudFront distribution. Its scope is CLOUDFRONT, which AWS accepts only
 * in us-east-1, so it lives in the edge stack (infra/edge-stacks.ts), not beside the API.
 */
export class EdgeWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeWebAclProps) {
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
  }
}

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
