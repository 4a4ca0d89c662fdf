import { Duration, Validations } from 'aws-cdk-lib';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ROUTE_SEQUENCE_ENTITY } from '../../functions/field/route-sequence.ts';
import { streamConsumerGroups } from '../../functions/stream-consumers.ts';
import type { DataTable } from './data-table.ts';
import { ServiceFunction } from './service-function.ts';

/** The item kinds whose changes move a tracking view (functions/tracking/consumer.ts). */
export const TRACKED_ENTITIES = ['order', 'route', 'stop', 'route-position', ROUTE_SEQUENCE_ENTITY, 'plan-route-claim'];

export interface TrackingProjectionProps {
  data: DataTable;
  serviceName: string;
}

/**
 * The tracking view's projection: a table stream consumer that rebuilds the views of the orders
 * and routes a batch touched, so that GET /v1/track/{token} is one GetItem.
 */
export class TrackingProjection extends Construct {
  readonly projector: ServiceFunction;
  /** Where the stream mapping reports batches it gave up on. */
  readonly streamFailures: Queue;

  constructor(scope: Construct, id: string, props: TrackingProjectionProps) {
    super(scope, id);
    const group = streamConsumerGroups.find((g) => g.name === 'tracking-projection');
    if (!group) throw new Error('functions/stream-consumers.ts has no "tracking-projection" consumer');
    this.projector = new ServiceFunction(this, 'Projector', {
      name: group.name,
      entry: group.entry,
      environment: { TABLE_NAME: props.data.table.tableName, POWERTOOLS_SERVICE_NAME: props.serviceName },
      timeout: Duration.seconds(60),
    });
    props.data.grantAccess(this.projector.function, group.table);
    Validations.of(this.projector.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Besides X-Ray, the stream mapping needs dynamodb:ListStreams, which has no resource-level permissions; stream reads are limited to the table stream.',
    });

    this.streamFailures = new Queue(this, 'StreamFailures', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination of the stream mapping; a dead-letter queue behind it would only move the same notices again.',
    });

    this.projector.function.addEventSource(
      new DynamoEventSource(props.data.table, {
        // The projection rebuilds from the items as they are now, so re-reading is harmless.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        bisectBatchOnError: true,
        retryAttempts: 10,
        onFailure: new SqsDlq(this.streamFailures),
        filters: [
          FilterCriteria.filter({ dynamodb: { NewImage: { entity: { S: FilterRule.or(...TRACKED_ENTITIES) } } } }),
          FilterCriteria.filter({ eventName: FilterRule.isEqual('REMOVE'), dynamodb: { OldImage: { entity: { S: FilterRule.or(...TRACKED_ENTITIES) } } } }),
        ],
      }),
    );
  }
}
