import { CrossStackReferences, ReferenceStrength, Stack, type StackProps } from 'aws-cdk-lib';
import type { Distribution } from 'aws-cdk-lib/aws-cloudfront';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { AccessLogDelivery } from './constructs/access-log-delivery.ts';
import { EDGE_REGION, EdgeWebAcl, type EdgeWebAclProps } from './constructs/web-acl.ts';

/** Account (or none) and settings of the two us-east-1 companions of the API stack. */
interface EdgeStackProps extends Omit<StackProps, 'env'> {
  account?: string;
}

/**
 * The CloudFront web ACL, the one resource that must exist before the API's stack and that AWS
 * accepts only in us-east-1. Deployed first; the distribution reads its ARN through a
 * cross-region reference (an SSM parameter in the API's region, written by this stack).
 */
export class EdgeAclStack extends Stack {
  readonly acl: EdgeWebAcl;

  constructor(scope: Construct, id: string, { account, rateLimitPerIp, rateWindowSeconds, ...props }: EdgeStackProps & EdgeWebAclProps) {
    super(scope, id, { ...props, env: { account, region: EDGE_REGION }, crossRegionReferences: true });
    this.acl = new EdgeWebAcl(this, 'Waf', { rateLimitPerIp, rateWindowSeconds });
  }
}

/**
 * The distribution's access-log delivery (CloudWatch Logs takes a CloudFront delivery source only
 * in us-east-1). It needs the distribution, so it is deployed after the API's stack; the logs
 * themselves go to the bucket in the API's region.
 */
export class EdgeLogsStack extends Stack {
  readonly accessLogs: AccessLogDelivery;

  constructor(scope: Construct, id: string, { account, distribution, bucket, ...props }: EdgeStackProps & { distribution: Distribution; bucket: Bucket }) {
    super(scope, id, { ...props, env: { account, region: EDGE_REGION }, crossRegionReferences: true });
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    this.accessLogs = new AccessLogDelivery(this, 'AccessLogs', { distribution, bucket });
  }
}
