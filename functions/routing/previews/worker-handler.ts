import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../../shared/logger.ts';
import type { PreviewMessage } from '../../../shared/ports/preview-queue.ts';
import { runPreview } from './worker.ts';

/**
 * The preview queue's consumer (ReportBatchItemFailures; batches of 1, a solve takes the whole
 * Lambda for up to its time limit). A message that fails comes back after its visibility timeout;
 * the preview's state and lease make a repeat harmless (worker.ts).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const message = JSON.parse(record.body) as PreviewMessage;
      const outcome = await runPreview({ tenantId: message.tenantId, previewId: message.previewId }, record.messageId);
      logger.info('route preview', { previewId: message.previewId, outcome });
    } catch (error) {
      logger.warn('route preview not finished; it will be delivered again', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
