import { Duration } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  ResponseHeadersPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import { MAX_REFRESH_SECONDS } from '../../functions/tracking/settings.ts';
import type { Edge } from './edge.ts';
import { deployedName } from '../deployment.ts';

/**
 * CloudFront behaviours of the two public tracking routes. Answers are cached by path (the
 * token) for as long as the origin's Cache-Control says, which is refreshSeconds, and never
 * longer than the longest refreshSeconds. No cookie, query string or Authorization header
 * reaches the cache key or the origin. The page's key also holds Accept-Language, because the
 * page is Spanish or English by it; the JSON view is the same for every language.
 */
export class TrackingEdge extends Construct {
  readonly viewCachePolicy: CachePolicy;
  readonly pageCachePolicy: CachePolicy;
  readonly originRequestPolicy: OriginRequestPolicy;
  readonly responseHeadersPolicy: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: { edge: Edge }) {
    super(scope, id);
    const ttl = { minTtl: Duration.seconds(0), defaultTtl: Duration.seconds(0), maxTtl: Duration.seconds(MAX_REFRESH_SECONDS) };
    const common = { ...ttl, cookieBehavior: CacheCookieBehavior.none(), queryStringBehavior: CacheQueryStringBehavior.none(), enableAcceptEncodingGzip: true, enableAcceptEncodingBrotli: true };
    this.viewCachePolicy = new CachePolicy(this, 'ViewCache', { ...common, cachePolicyName: deployedName(this, 'tracking-view'), comment: 'GET /v1/track/{token}: by path only', headerBehavior: CacheHeaderBehavior.none() });
    this.pageCachePolicy = new CachePolicy(this, 'PageCache', { ...common, cachePolicyName: deployedName(this, 'tracking-page'), comment: 'GET /t/{token}: by path and language', headerBehavior: CacheHeaderBehavior.allowList('Accept-Language') });
    // Nothing from the viewer beyond the cache key: the origin sees its own Host, no cookies.
    this.originRequestPolicy = new OriginRequestPolicy(this, 'Origin', {
      originRequestPolicyName: deployedName(this, 'tracking-origin'),
      comment: 'Public tracking: nothing but the cache key',
      headerBehavior: OriginRequestHeaderBehavior.none(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
      queryStringBehavior: OriginRequestQueryStringBehavior.none(),
    });
    // The origin already sends these; CloudFront enforces them even on its own error answers.
    this.responseHeadersPolicy = new ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: deployedName(this, 'tracking-headers'),
      comment: 'Public tracking: no referrer, no indexing',
      securityHeadersBehavior: {
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'X-Robots-Tag', value: 'noindex', override: true }] },
    });
    const options = { allowedMethods: AllowedMethods.ALLOW_GET_HEAD, originRequestPolicy: this.originRequestPolicy, responseHeadersPolicy: this.responseHeadersPolicy };
    props.edge.addApiBehavior('/v1/track/*', this.viewCachePolicy, options);
    props.edge.addApiBehavior('/t/*', this.pageCachePolicy, options);
  }
}
