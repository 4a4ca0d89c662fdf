import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { RecordImports } from './record-imports.ts';
import type { ServiceFunction } from './service-function.ts';

export interface DispatchGuideIssuingProps {
  /** The import queue and its worker: the worker issues a route's guides (functions/invoicing/guides). */
  imports: RecordImports;
  /** The field function: `POST /v1/field/routes/{id}/dispatch-guides` queues the route's guides after its commit. */
  fieldFunction: ServiceFunction;
}

/**
 * Dispatch guides (issue 17) are issued outside the request by the import worker, which already
 * holds the provider access, its per-connection spacing and the tenant-fair queue. The field
 * function only sends the route's message to that queue; a lost message is made good by the
 * invoice reconciler, which issues an approved guide nobody took (docs/dispatch-guides.md).
 */
export class DispatchGuideIssuing extends Construct {
  constructor(scope: Construct, id: string, props: DispatchGuideIssuingProps) {
    super(scope, id);
    const { imports, fieldFunction } = props;
    fieldFunction.function.addEnvironment('IMPORT_QUEUE_URL', imports.queue.queueUrl);
    fieldFunction.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [imports.queue.queueArn] }));
  }
}
