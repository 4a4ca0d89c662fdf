import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { invoiceReconciler } from '../../functions/jobs.ts';
import type { DataTable } from './data-table.ts';
import { ServiceFunction } from './service-function.ts';

export interface InvoiceReconcilerProps {
  data: DataTable;
  serviceName: string;
}

/**
 * decisions 9: every minute, intents left submitting or unknown, and tax states still pending,
 * are looked up at the provider (functions/invoicing/reconciler). Provider access (settings,
 * token secret, KMS for the sealed connection token) is granted by BillingProviderAccess.
 */
export class InvoiceReconciler extends Construct {
  readonly fn: ServiceFunction;

  constructor(scope: Construct, id: string, props: InvoiceReconcilerProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      name: invoiceReconciler.name,
      entry: invoiceReconciler.entry,
      environment: { TABLE_NAME: props.data.table.tableName, POWERTOOLS_SERVICE_NAME: props.serviceName },
      // Finished before the next run starts.
      timeout: Duration.seconds(50),
    });
    props.data.grantAccess(this.fn.function, invoiceReconciler.table);
    // A failed run is repeated by the next one a minute later; async retries would only overlap it.
    this.fn.function.configureAsyncInvoke({ retryAttempts: 0 });
    new Rule(this, 'EveryMinute', {
      description: 'Settles invoice intents left submitting or unknown, and polls pending tax states',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.fn.function, { retryAttempts: 0 })],
    });
  }
}
