import type { Context } from 'aws-lambda';
import { sweepPreviews, type SweepRun } from './sweep.ts';

/** The preview sweeper's Lambda, on a one-minute schedule (sweep.ts). */
export const handler = async (_event: unknown, context?: Context): Promise<SweepRun> => sweepPreviews(new Date(), context?.awsRequestId);
