import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientOptions } from './client-options.ts';
import { wrapped } from './wrappers.ts';

declare module './wrappers.ts' {
  interface WrappablePorts {
    previewQueue: PreviewQueuePort;
  }
}

/** "Solve this route preview" (decisions 15): the ids only; the stored preview holds the request. */
export interface PreviewMessage {
  tenantId: string;
  previewId: string;
}

export interface PreviewQueuePort {
  send(message: PreviewMessage): Promise<void>;
}

/** Only the message's own fields go on the wire, whatever else the caller's object holds. */
export const previewMessageBody = (message: PreviewMessage): string => JSON.stringify({ tenantId: message.tenantId, previewId: message.previewId });

/**
 * The tenant is the message's fairness group (SQS fair queues): a tenant that asks for many
 * previews at once does not hold back another tenant's one.
 */
export const previewMessageGroup = (message: PreviewMessage): string => message.tenantId;

export class SqsPreviewQueue implements PreviewQueuePort {
  constructor(private readonly options: { queueUrl: string; client: SQSClient }) {}

  async send(message: PreviewMessage): Promise<void> {
    await this.options.client.send(
      new SendMessageCommand({ QueueUrl: this.options.queueUrl, MessageBody: previewMessageBody(message), DelaySeconds: 0, MessageGroupId: previewMessageGroup(message) }),
    );
  }
}

let installed: PreviewQueuePort | undefined;
let sqs: SQSClient | undefined;

/** The preview queue: PREVIEW_QUEUE_URL in the cloud (its client built once per container), or the stand-in installed locally. */
export const previewQueue = (): PreviewQueuePort => wrapped('previewQueue', installedQueue());

const installedQueue = (): PreviewQueuePort => {
  if (installed) return installed;
  const queueUrl = process.env.PREVIEW_QUEUE_URL;
  if (!queueUrl) throw new Error('the preview queue is not configured: set PREVIEW_QUEUE_URL (or install a stand-in with setPreviewQueue)');
  sqs ??= new SQSClient(awsClientOptions());
  return (installed = new SqsPreviewQueue({ queueUrl, client: sqs }));
};

export const setPreviewQueue = (queue: PreviewQueuePort | undefined): void => {
  installed = queue;
  if (!queue) {
    sqs?.destroy();
    sqs = undefined;
  }
};
