import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../../shared/logger.ts';
import { processDelivery } from './deliver.ts';

/**
 * The SQS consumer (ReportBatchItemFailures): each message is one attempt of one delivery. A
 * message that fails is handed over again by SQS; its claim makes a repeat harmless.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        await processDelivery(JSON.parse(record.body));
      } catch (error) {
        logger.error('webhook attempt failed to complete', { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
