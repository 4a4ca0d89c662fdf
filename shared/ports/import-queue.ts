import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { checkDelaySeconds } from './queue.ts';
import { awsClientOptions } from './client-options.ts';
import { wrapped } from './wrappers.ts';

declare module './wrappers.ts' {
  interface WrappablePorts {
    importQueue: ImportQueuePort;
  }
}

/**
 * One message per provider page of an import (decisions 10): `step` is the number of pages the
 * import had committed when the message was sent, so a redelivered message is recognised.
 */
export interface ImportMessage {
  tenantId: string;
  connectionId: string;
  importId: string;
  step: number;
}

/** "Read the pending notices of this provider company", within its budget (functions/records/notice-drain.ts). */
export interface NoticeDrainMessage {
  kind: 'notices';
  origin: string;
  clientCode: string;
}

/**
 * "Issue the approved dispatch guides of this route" (issue 17, functions/invoicing/guides): the
 * import worker already holds the provider access and spaces one connection's calls.
 */
export interface GuideIssueMessage {
  kind: 'guides';
  tenantId: string;
  routeId: string;
}

export type ImportQueueMessage = ImportMessage | NoticeDrainMessage | GuideIssueMessage;

export const isNoticeDrain = (message: ImportQueueMessage): message is NoticeDrainMessage => 'kind' in message && message.kind === 'notices';
export const isGuideIssue = (message: ImportQueueMessage): message is GuideIssueMessage => 'kind' in message && message.kind === 'guides';

export interface ImportQueuePort {
  /** delaySeconds: 0-900 (SQS's limit), as for the webhook queue. */
  send(message: ImportQueueMessage, delaySeconds?: number): Promise<void>;
}

/** Only the message's own fields go on the wire, whatever else the caller's object holds. */
export const importMessageBody = (message: ImportQueueMessage): string => {
  if (isGuideIssue(message)) return JSON.stringify({ kind: message.kind, tenantId: message.tenantId, routeId: message.routeId });
  return isNoticeDrain(message)
    ? JSON.stringify({ kind: message.kind, origin: message.origin, clientCode: message.clientCode })
    : JSON.stringify({ tenantId: message.tenantId, connectionId: message.connectionId, importId: message.importId, step: message.step });
};

/**
 * The message's fairness group (SQS fair queues, MessageGroupId on a standard queue): the tenant
 * of an import, the company of notices. A tenant with many imports queued does not hold back
 * another tenant's first page: the queue serves groups without a backlog first.
 */
export const importMessageGroup = (message: ImportQueueMessage): string => {
  // A tenant's guides do not wait behind its own import backlog.
  if (isGuideIssue(message)) return `guides#${message.tenantId}`;
  return isNoticeDrain(message) ? `notices#${message.origin}#${message.clientCode}` : message.tenantId;
};

export class SqsImportQueue implements ImportQueuePort {
  constructor(private readonly options: { queueUrl: string; client: SQSClient }) {}

  async send(message: ImportQueueMessage, delaySeconds = 0): Promise<void> {
    const DelaySeconds = checkDelaySeconds(delaySeconds);
    await this.options.client.send(
      new SendMessageCommand({ QueueUrl: this.options.queueUrl, MessageBody: importMessageBody(message), DelaySeconds, MessageGroupId: importMessageGroup(message) }),
    );
  }
}

let installed: ImportQueuePort | undefined;
let sqs: SQSClient | undefined;

/** The import queue: IMPORT_QUEUE_URL in the cloud (built once per container), or the stand-in installed locally. */
export const importQueue = (): ImportQueuePort => wrapped('importQueue', installedQueue());

const installedQueue = (): ImportQueuePort => {
  if (installed) return installed;
  const queueUrl = process.env.IMPORT_QUEUE_URL;
  if (!queueUrl) throw new Error('the import queue is not configured: set IMPORT_QUEUE_URL (or install a stand-in with setImportQueue)');
  sqs ??= new SQSClient(awsClientOptions());
  return (installed = new SqsImportQueue({ queueUrl, client: sqs }));
};

export const setImportQueue = (queue: ImportQueuePort | undefined): void => {
  installed = queue;
  if (!queue) {
    sqs?.destroy();
    sqs = undefined;
  }
};
