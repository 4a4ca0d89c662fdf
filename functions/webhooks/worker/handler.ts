import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../../shared/logger.ts';
import { isRecoveryPage, type QueueMessage } from '../../../shared/ports/queue.ts';
import { processDelivery } from './deliver.ts';
import { runRecoveryPage } from './recovery-page.ts';

/**
 * The SQS consumer (ReportBatchItemFailures): each message is one attempt of one delivery, or one
 * page of a recovery. A message that fails is handed over again by SQS; a claim (an attempt) or
 * the step it names (a page) makes a repeat harmless.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as QueueMessage;
        if (isRecoveryPage(message)) await runRecoveryPage(message);
        else await processDelivery(message);
      } catch (error) {
        logger.error('webhook attempt failed to complete', { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
