/**
 * Functions that no route and no table stream invoke: a queue's consumer, a scheduled job.
 * The CDK stack makes one Lambda each under `name`; the local stack's stand-ins invoke the same
 * handler as `name`, so the IAM check holds their AWS calls against that Lambda's role.
 */
export interface JobFunction {
  name: string;
  /** The handler module, relative to the project root; it exports `handler`. */
  entry: string;
}

export const webhookWorker: JobFunction = { name: 'webhook-worker', entry: 'functions/webhooks/worker/handler.ts' };
export const webhookSweeper: JobFunction = { name: 'webhook-sweeper', entry: 'functions/webhooks/sweeper/handler.ts' };

export const jobFunctions: JobFunction[] = [webhookWorker, webhookSweeper];
