import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../../shared/logger.ts';
import { isEndPending, isRecoveryPage, type QueueMessage } from '../../../shared/ports/queue.ts';
import { endPendingPage } from '../pending-deliveries.ts';
import { processDelivery } from './deliver.ts';
import { runRecoveryPage } from './recovery-page.ts';

/**
 * The SQS consumer (ReportBatchItemFailures): each message is one attempt of one delivery, one
 * page of a recovery, or one page of a stopped destination's pending deliveries to end. A message
 * that fails is handed over again by SQS; a claim (an attempt), the step it names (a recovery
 * page) or the `pending` condition (an ending page) makes a repeat harmless.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as QueueMessage;
        if (isRecoveryPage(message)) await runRecoveryPage(message);
        else if (isEndPending(message)) await endPendingPage(message);
        else await processDelivery(message);
      } catch (error) {
        logger.error('webhook attempt failed to complete', { messageId: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
