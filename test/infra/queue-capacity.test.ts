import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { MINIMUM_MAX_RECEIVE_COUNT, SQS_MAPPING_MINIMUM_CONCURRENCY, VISIBILITY_PER_TIMEOUT, workerConcurrency } from '../../infra/constructs/queue-capacity.ts';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { sharedTemplate, type Resource } from './synth.ts';
import { templateApp } from './test-app.ts';

/**
 * Issue 28, item 2: every SQS queue with a Lambda consumer is safe on the account it is deployed
 * to, a new account's 10 concurrent executions by default. Checked on each event source mapping
 * of the template, so a queue added later is held to the same rules.
 */
type Resources = Record<string, Resource>;

interface QueueMapping {
  id: string;
  functionTimeout: number;
  visibilityTimeout: number;
  maxReceiveCount: number | undefined;
  maximumConcurrency: number | undefined;
  reserved: number | undefined;
}

/** Each event source mapping whose source is an SQS queue of the template, with its queue and function. */
const queueMappings = (resources: Resources): QueueMapping[] =>
  Object.entries(resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping')
    .flatMap(([id, mapping]) => {
      const queueId = mapping.Properties.EventSourceArn?.['Fn::GetAtt']?.[0] as string | undefined;
      const queue = queueId ? resources[queueId] : undefined;
      if (queue?.Type !== 'AWS::SQS::Queue') return [];
      const fn = resources[mapping.Properties.FunctionName.Ref as string]!;
      return [
        {
          id,
          // Lambda's default timeout is 3 s; SQS's default visibility 30 s.
          functionTimeout: fn.Properties.Timeout ?? 3,
          visibilityTimeout: queue.Properties.VisibilityTimeout ?? 30,
          maxReceiveCount: queue.Properties.RedrivePolicy?.maxReceiveCount,
          maximumConcurrency: mapping.Properties.ScalingConfig?.MaximumConcurrency,
          reserved: fn.Properties.ReservedConcurrentExecutions,
        },
      ];
    });

const holdsTheRules = (mappings: QueueMapping[], accountConcurrency: number) => {
  // The three queues of the service: webhook attempts, imports, previews.
  expect(mappings.length).toBeGreaterThanOrEqual(3);
  for (const m of mappings) {
    expect(m.visibilityTimeout, m.id).toBeGreaterThanOrEqual(VISIBILITY_PER_TIMEOUT * m.functionTimeout);
    expect(m.maxReceiveCount, m.id).toBeGreaterThanOrEqual(MINIMUM_MAX_RECEIVE_COUNT);
    expect(m.maximumConcurrency, m.id).toBeGreaterThanOrEqual(SQS_MAPPING_MINIMUM_CONCURRENCY);
    expect(m.maximumConcurrency, m.id).toBeLessThanOrEqual(accountConcurrency);
    // AWS: never above the function's reserved concurrency, or the mapping polls into throttles.
    if (m.reserved !== undefined) expect(m.maximumConcurrency, m.id).toBeLessThanOrEqual(m.reserved);
  }
};

/** Without bundling or cdk-nag: the queues and mappings do not depend on the code. */
const quickTemplate = (context: Record<string, string>): Resources => {
  const app = templateApp(context);
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  return Template.fromStack(stack).toJSON().Resources as Resources;
};

let deployed: Resources;
beforeAll(async () => {
  deployed = (await sharedTemplate()).Resources as Resources;
}, 180_000);

describe('queues with a Lambda consumer (every SQS event source mapping)', () => {
  it('on a new account (10 executions assumed): visibility six times the consumer timeout, 5 receives, 2 batches each', () => {
    const mappings = queueMappings(deployed);
    holdsTheRules(mappings, 10);
    expect(mappings.map((m) => m.maximumConcurrency)).toEqual([2, 2, 2]);
    // Six of the ten at most: the API, the every-minute jobs and the stream consumers keep four.
    expect(mappings.reduce((sum, m) => sum + m.maximumConcurrency!, 0)).toBeLessThanOrEqual(6);
  });

  it('derives each maximum from the stated account, never above it, up to the old bounds of 20, 5 and 2', () => {
    for (const account of [3, 40, 1000]) {
      const mappings = queueMappings(quickTemplate({ accountConcurrency: String(account) }));
      holdsTheRules(mappings, account);
      const { webhooks, imports, previews } = workerConcurrency(account);
      expect(mappings.map((m) => m.maximumConcurrency).sort(), String(account)).toEqual([webhooks, imports, previews].sort());
    }
    expect(workerConcurrency(100)).toEqual({ webhooks: 20, imports: 5, previews: 2 });
    expect(workerConcurrency(40)).toEqual({ webhooks: 8, imports: 2, previews: 2 });
  }, 120_000);

  it('reserves what the mappings may take once the account allows it, and refuses an account a mapping cannot fit', () => {
    const mappings = queueMappings(quickTemplate({ accountConcurrency: '177' }));
    holdsTheRules(mappings, 177);
    expect(mappings.map((m) => m.reserved)).toEqual(mappings.map((m) => m.maximumConcurrency));
    for (const value of ['1', '2.5', 'ten']) expect(() => quickTemplate({ accountConcurrency: value }), value).toThrow(/accountConcurrency/);
  });
});
