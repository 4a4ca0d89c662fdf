import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { TableAccess } from '../shared/table/access.ts';

/**
 * The table stream's consumers: one Lambda each in the cloud (an event source mapping),
 * one reader position each in the local stack. Later areas add theirs here.
 */
export interface StreamConsumerGroup {
  name: string;
  entry: string;
  /** What the consumer does with the table; its role is granted exactly this (stream reads come with the mapping). */
  table: TableAccess;
  load(): Promise<(event: DynamoDBStreamEvent) => Promise<void | DynamoDBBatchResponse>>;
}

export const streamConsumerGroups: StreamConsumerGroup[] = [
  {
    name: 'tracking-projection',
    entry: 'functions/tracking/consumer.ts',
    // Reads orders, routes and their stops (gsi1: a route's orders), writes the views;
    // BatchGetItem: the time windows of a planned route's orders (decisions 17).
    table: { items: ['GetItem', 'BatchGetItem', 'Query', 'PutItem'], queries: ['gsi1'] },
    load: async () => (await import('./tracking/consumer.ts')).handler,
  },
  {
    name: 'webhook-fan-out',
    entry: 'functions/webhooks/fan-out/handler.ts',
    // Reads the tenant's destinations and a delivery, writes new deliveries; a deleted
    // destination's pending deliveries are ended by the worker, through the queue.
    table: { items: ['GetItem', 'Query', 'PutItem'] },
    load: async () => (await import('./webhooks/fan-out/handler.ts')).handler,
  },
];
