import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TableAccess } from '../../shared/table/access.ts';
import { tableDefinition } from '../../shared/table/definition.ts';

export interface DataTableProps {
  /** DynamoDB refuses to delete the table, a failed first create's rollback included. */
  deletionProtection: boolean;
}

/** The single table, built from the same plain definition the local stack uses. */
export class DataTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DataTableProps) {
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
      deletionProtection: props.deletionProtection,
      // Tenant data outlives any one deployment; a stack delete must not take it along. A failed
      // first create holds no data, and its rollback removes the table (only if deletion
      // protection is still off then: see docs/cloud-stack.md, First deploy).
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
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
   * Exactly the access a function's manifest entry declares: its item actions on the table, Query
   * on the indexes it reads, and, if it names partitions, only items whose partition key matches
   * them. Never Scan, stream reads or an `index/*` wildcard (grantReadWriteData gives all three).
   */
  grantAccess(grantee: IGrantable, access: TableAccess): void {
    const tableArn = this.table.tableArn;
    const conditions = access.partitions ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...access.partitions] } } : undefined;
    if (access.items.length > 0) {
      grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: access.items.map((a) => `dynamodb:${a}`), resources: [tableArn], conditions }));
    }
    for (const scoped of access.scopedItems ?? []) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          actions: scoped.items.map((a) => `dynamodb:${a}`),
          resources: [tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...scoped.partitions] } },
        }),
      );
    }
    if (access.queries?.length) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['dynamodb:Query'], resources: access.queries.map((index) => `${tableArn}/index/${index}`), conditions }),
      );
    }
  }
}
