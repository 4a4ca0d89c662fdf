import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/table/definition.ts';

/**
 * Item-level actions the request handlers use. TransactWriteItems and TransactGetItems are
 * authorised through these per-item actions, so they need no entry of their own. Scan, stream
 * reads and table management are left out on purpose.
 */
const itemActions = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

/** The single table, built from the same plain definition the local stack uses. */
export class DataTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const d = tableDefinition;
    const key = (name: string) => ({ name, type: AttributeType.STRING });

    this.table = new Table(this, 'Table', {
      partitionKey: key(d.partitionKey),
      sortKey: key(d.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: d.ttlAttribute,
      stream: StreamViewType[d.streamViewType],
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      // Tenant data outlives any one deployment; a stack delete must not take it along.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of d.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }

  /**
   * Item reads and writes on the table and on its named indexes. Narrower than
   * `grantReadWriteData`, which adds Scan, stream reads and an `index/*` wildcard.
   */
  grantItemAccess(grantee: IGrantable): Grant {
    const tableArn = this.table.tableArn;
    return Grant.addToPrincipal({
      grantee,
      actions: itemActions,
      resourceArns: [tableArn, ...tableDefinition.globalIndexes.map((index) => `${tableArn}/index/${index.indexName}`)],
    });
  }
}
