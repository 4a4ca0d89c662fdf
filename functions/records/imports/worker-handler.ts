import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../../shared/logger.ts';
import { isGuideIssue, isNoticeDrain, type ImportQueueMessage } from '../../../shared/ports/import-queue.ts';
import { issueRouteGuides } from '../../invoicing/guides/issue-guides.ts';
import { drainNotices } from '../notice-drain.ts';
import { runImportPage } from './run-page.ts';

/**
 * The import queue's consumer (ReportBatchItemFailures). Each message is one page of one import
 * (or a provider company's notices to read, notice-drain.ts);
 * a message that fails comes back after its visibility timeout, and the import's step makes the
 * repeat harmless. Pages of one import never overlap: its next message is sent only after commit.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      const message = JSON.parse(record.body) as ImportQueueMessage;
      if (isGuideIssue(message)) {
        // Dispatch guides of a route (issue 17): this worker already holds the provider access and its spacing.
        logger.info('dispatch guides', { routeId: message.routeId, outcome: await issueRouteGuides(message, { requestId: record.messageId }) });
        continue;
      }
      if (isNoticeDrain(message)) {
        logger.info('provider notices', { clientCode: message.clientCode, outcome: await drainNotices(message) });
        continue;
      }
      const outcome = await runImportPage(message, Number(record.attributes.ApproximateReceiveCount ?? 1));
      logger.info('import page', { importId: message.importId, step: message.step, outcome });
    } catch (error) {
      logger.error('import page failed; it will be delivered again', { messageId: record.messageId, error: error as Error });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
