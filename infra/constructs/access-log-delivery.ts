import { createHash } from 'node:crypto';
import { Fn, Names, Stack, type CfnElement } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { CfnDelivery, CfnDeliveryDestination, CfnDeliverySource } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { deployedName } from '../deployment.ts';

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

export interface AccessLogDeliveryProps {
  distribution: IDistribution;
  /** The access-log bucket (Edge, in the API's region); its policy admits this account's delivery sources in us-east-1. */
  bucket: Bucket;
}

/**
 * Standard logging v2: CloudWatch Logs delivers the distribution's access logs to the bucket with
 * ACCESS_LOG_FIELDS only. The CloudWatch Logs API accepts a CloudFront delivery source only in
 * us-east-1, so this lives in the edge logs stack; the bucket may be in any region.
 */
export class AccessLogDelivery extends Construct {
  readonly source: CfnDeliverySource;
  readonly destination: CfnDeliveryDestination;
  readonly delivery: CfnDelivery;
  /** The source's name, which the bucket policy admits (Edge.admitLogDelivery). */
  readonly sourceName: string;

  constructor(scope: Construct, id: string, props: AccessLogDeliveryProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { distribution, bucket } = props;
    // Both resources need a name, and a name that stays while a property that forces a
    // replacement changes would make the replacement collide with the old resource: the source's
    // name carries the distribution id, the destination's a digest of its settings.
    const name = deployedName(this, 'logs', '') ?? Names.uniqueResourceName(this, { maxLength: 30, separator: '-' });
    const destinationSettings = { bucket: Stack.of(bucket).getLogicalId(bucket.node.defaultChild as CfnElement), outputFormat: 'json' };
    this.sourceName = Fn.join('-', [name, distribution.distributionId]);
    this.source = new CfnDeliverySource(this, 'Source', {
      name: this.sourceName,
      logType: 'ACCESS_LOGS',
      resourceArn: stack.formatArn({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: distribution.distributionId }),
    });
    this.destination = new CfnDeliveryDestination(this, 'Destination', {
      name: `${name}-${createHash('sha256').update(JSON.stringify(destinationSettings)).digest('hex').slice(0, 8)}`,
      destinationResourceArn: bucket.bucketArn,
      outputFormat: destinationSettings.outputFormat,
    });
    this.delivery = new CfnDelivery(this, 'Delivery', {
      deliverySourceName: this.source.name,
      deliveryDestinationArn: this.destination.attrArn,
      recordFields: ACCESS_LOG_FIELDS,
    });
    // The bucket policy (in the API's stack, deployed before this one) must admit the delivery first.
    this.delivery.node.addDependency(this.source);
  }
}
