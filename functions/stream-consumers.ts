import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

/**
 * The table stream's consumers: one Lambda each in the cloud (an event source mapping),
 * one reader position each in the local stack. Later areas add theirs here.
 */
export interface StreamConsumerGroup {
  name: string;
  entry: string;
  load(): Promise<(event: DynamoDBStreamEvent) => Promise<void | DynamoDBBatchResponse>>;
}

export const streamConsumerGroups: StreamConsumerGroup[] = [
  {
    name: 'tracking-projection',
    entry: 'functions/tracking/consumer.ts',
    load: async () => (await import('./tracking/consumer.ts')).handler,
  },
  {
    name: 'webhook-fan-out',
    entry: 'functions/webhooks/fan-out/handler.ts',
    load: async () => (await import('./webhooks/fan-out/handler.ts')).handler,
  },
];
