import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

/** What a webhook attempt message carries: enough to load the delivery, nothing secret. */
export interface DeliveryMessage {
  tenantId: string;
  deliveryId: string;
}

/**
 * One page of a recovery (decisions 5): `step` is the number of pages the recovery had committed
 * when the message was sent, so a message handed over twice is recognised. It shares the attempts
 * queue and its worker, which already hold every right a page needs.
 */
export interface RecoveryPageMessage {
  tenantId: string;
  /** `lease`: sent by the sweeper for a recovery whose lease (this value) ran out; the worker takes it over once. */
  recoveryPage: { endpointId: string; recoveryId: string; step: number; lease?: string };
}

/**
 * One page of a stopped destination's pending deliveries to end `dead` (a deleted destination's,
 * or one disabled by failures): `cursor` is where the destination's delivery history is read from.
 */
export interface EndPendingMessage {
  tenantId: string;
  endPending: { endpointId: string; outcome: 'destination_deleted' | 'destination_disabled'; cursor: string | null };
}

/** What the attempts queue carries. */
export type QueueMessage = DeliveryMessage | RecoveryPageMessage | EndPendingMessage;

export const isRecoveryPage = (message: QueueMessage): message is RecoveryPageMessage => 'recoveryPage' in message;
export const isEndPending = (message: QueueMessage): message is EndPendingMessage => 'endPending' in message;
export const isDelivery = (message: QueueMessage): message is DeliveryMessage => 'deliveryId' in message;

/** SQS refuses a larger per-message delay; longer waits go through the scheduler. */
export const MAX_SQS_DELAY_SECONDS = 900;

export interface QueuePort {
  /** delaySeconds: an integer from 0 to MAX_SQS_DELAY_SECONDS; a RangeError otherwise. */
  send(message: QueueMessage, delaySeconds?: number): Promise<void>;
}

/** Shared by the adapter and the local stand-in so both refuse the same delays. */
export const checkDelaySeconds = (delaySeconds: number): number => {
  if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_SQS_DELAY_SECONDS) {
    throw new RangeError(`delaySeconds must be an integer from 0 to ${MAX_SQS_DELAY_SECONDS}, got ${delaySeconds}`);
  }
  return delaySeconds;
};

/** Only the message's own fields go on the wire, whatever else the caller's object holds. */
export const messageBody = (message: QueueMessage): string => {
  if (isEndPending(message)) {
    const { endpointId, outcome, cursor } = message.endPending;
    return JSON.stringify({ tenantId: message.tenantId, endPending: { endpointId, outcome, cursor } });
  }
  if (!isRecoveryPage(message)) return JSON.stringify({ tenantId: message.tenantId, deliveryId: message.deliveryId });
  const { endpointId, recoveryId, step, lease } = message.recoveryPage;
  return JSON.stringify({ tenantId: message.tenantId, recoveryPage: { endpointId, recoveryId, step, ...(lease ? { lease } : {}) } });
};

export class SqsQueue implements QueuePort {
  private readonly queueUrl: string;
  private readonly client: SQSClient;

  constructor(options: { queueUrl: string; client?: SQSClient }) {
    this.queueUrl = options.queueUrl;
    this.client = options.client ?? new SQSClient({});
  }

  async send(message: QueueMessage, delaySeconds = 0): Promise<void> {
    const DelaySeconds = checkDelaySeconds(delaySeconds);
    // DelaySeconds is always sent so a queue-level default delay never adds to the retry plan.
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: messageBody(message), DelaySeconds }));
  }
}
