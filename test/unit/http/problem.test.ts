import {
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { problemResult } from '../../../shared/http/problem.ts';

const meta = { $metadata: { httpStatusCode: 400 } };
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ ...meta, message: `Transaction cancelled [${codes.join(', ')}]`, CancellationReasons: codes.map((Code) => ({ Code })) });

const statusOf = (error: unknown) => problemResult(error, 'req-1');

describe('the status of an AWS SDK error', () => {
  it('is 503 with Retry-After for DynamoDB throttling, also a transaction cancelled for it', () => {
    for (const error of [
      cancelled('None', 'ThrottlingError'),
      cancelled('ProvisionedThroughputExceeded', 'None', 'None'),
      new ThrottlingException({ ...meta, message: 'slow down' }),
      new ProvisionedThroughputExceededException({ ...meta, message: 'slow down' }),
      new RequestLimitExceeded({ ...meta, message: 'slow down' }),
      new TransactionInProgressException({ ...meta, message: 'same token in flight' }),
    ]) {
      const result = statusOf(error);
      expect(result.statusCode, error.name).toBe(503);
      expect(JSON.parse(result.body!).code).toBe('dependency_unavailable');
      expect(Number(result.headers!['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('is 503 for an error the SDK marks as throttling, whatever its name', () => {
    const error = Object.assign(new Error('throttled'), { name: 'SomeNewThrottle', $retryable: { throttling: true } });
    expect(statusOf(error).statusCode).toBe(503);
  });

  it('stays 500 for a transaction cancelled for a reason a retry cannot mend', () => {
    expect(statusOf(cancelled('ValidationError', 'None')).statusCode).toBe(500);
    expect(statusOf(cancelled('ItemCollectionSizeLimitExceeded')).statusCode).toBe(500);
  });
});
