import { inject } from 'vitest';

/**
 * This worker's DynamoDB Local (VITEST_POOL_ID numbers the workers from 1; the global setup starts
 * one per worker): a file shares it only with the files that run after it in the same worker,
 * never with one running beside it.
 */
export const dynamoEndpoint = (): string => {
  const endpoints = inject('dynamoEndpoints') ?? [inject('dynamoEndpoint')];
  const worker = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
  return endpoints[(worker - 1) % endpoints.length]!;
};
