import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KmsKeyService, LocalKeyService } from '../../../shared/ports/key-service.ts';
import { SqsQueue, type QueuePort } from '../../../shared/ports/queue.ts';
import { ports, resetPorts, setPorts } from '../../../shared/ports/registry.ts';
import { EventBridgeScheduler } from '../../../shared/ports/scheduler.ts';
import { recordCallsTo } from '../../../shared/aws-calls/recorder.ts';

const NAMES = ['WEBHOOK_QUEUE_URL', 'WEBHOOK_QUEUE_ARN', 'WEBHOOK_SCHEDULE_GROUP', 'WEBHOOK_SCHEDULER_ROLE_ARN', 'WEBHOOK_KMS_KEY_ID', 'WEBHOOK_LOCAL_KEY_FILE'];
const saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
const setEnv = (values: Record<string, string | undefined>) => {
  for (const name of NAMES) {
    if (values[name] === undefined) delete process.env[name];
    else process.env[name] = values[name];
  }
};
const cloud = {
  WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-attempts',
  WEBHOOK_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:123456789012:webhook-attempts',
  WEBHOOK_SCHEDULE_GROUP: 'webhook-retries',
  WEBHOOK_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/webhook-scheduler',
  WEBHOOK_KMS_KEY_ID: 'alias/webhook-secrets',
};

// These tests look at the ports as built; the test run's call recording would wrap them.
let runSink: string | undefined;
beforeAll(() => {
  runSink = recordCallsTo(undefined);
});
afterAll(() => {
  recordCallsTo(runSink);
});

afterEach(() => {
  resetPorts();
  setEnv(saved);
});

describe('ports registry', () => {
  it('builds the AWS adapters from the environment, once', () => {
    setEnv(cloud);
    const built = ports();
    expect(built.queue).toBeInstanceOf(SqsQueue);
    expect(built.scheduler).toBeInstanceOf(EventBridgeScheduler);
    expect(built.keys).toBeInstanceOf(KmsKeyService);
    expect(ports()).toBe(built);
  });

  it('names every missing variable', () => {
    setEnv({ WEBHOOK_QUEUE_URL: cloud.WEBHOOK_QUEUE_URL });
    expect(() => ports()).toThrow(/WEBHOOK_QUEUE_ARN, WEBHOOK_SCHEDULE_GROUP, WEBHOOK_SCHEDULER_ROLE_ARN, WEBHOOK_KMS_KEY_ID/);
  });

  it('uses the local key file when no KMS key is set', () => {
    setEnv({ ...cloud, WEBHOOK_KMS_KEY_ID: undefined, WEBHOOK_LOCAL_KEY_FILE: '/tmp/never-read.key' });
    expect(ports().keys).toBeInstanceOf(LocalKeyService);
  });

  it('returns stand-ins set by setPorts, the rest from the environment, until reset', () => {
    setEnv({});
    const queue: QueuePort = { send: async () => {} };
    const scheduler = { scheduleAt: async () => {} };
    const keys = new LocalKeyService({ keyFile: '/tmp/never-read.key' });
    setPorts({ queue, scheduler });
    expect(() => ports()).toThrow(/WEBHOOK_KMS_KEY_ID/);
    setPorts({ keys });
    expect(ports()).toEqual({ queue, scheduler, keys });
    resetPorts();
    expect(() => ports()).toThrow(/WEBHOOK_QUEUE_URL/);
  });
});
