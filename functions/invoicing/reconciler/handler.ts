import type { Context } from 'aws-lambda';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { runReconciler, type ReconcilerRun } from './run.ts';

/** The scheduled reconciler: every minute in the cloud (EventBridge rule), and in the local stack. */
export const handler = async (_event: unknown, context?: Context): Promise<ReconcilerRun> => {
  const run = await runReconciler(new Date(), { runId: context?.awsRequestId ?? newId() });
  if (run.looked > 0 || run.held > 0 || run.postponed > 0 || run.notReady > 0 || run.migrated > 0) logger.info('invoice reconciler ran', { ...run });
  return run;
};
