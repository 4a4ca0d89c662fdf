import { KMSClient } from '@aws-sdk/client-kms';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { KmsKeyService, LocalKeyService, type KeyService } from './key-service.ts';
import { SqsQueue, type QueuePort } from './queue.ts';
import { EventBridgeScheduler, type SchedulerPort } from './scheduler.ts';
import { awsClientOptions } from './client-options.ts';
import { wrapped } from './wrappers.ts';

declare module './wrappers.ts' {
  interface WrappablePorts {
    queue: QueuePort;
    scheduler: SchedulerPort;
    keys: KeyService;
  }
}

export interface Ports {
  queue: QueuePort;
  scheduler: SchedulerPort;
  keys: KeyService;
}

let sqs: SQSClient | undefined;
let scheduler: SchedulerClient | undefined;
let kms: KMSClient | undefined;
let overrides: Partial<Ports> = {};
let built: Ports | undefined;

const fromEnv = (): Ports => {
  const env = process.env;
  const read = (name: string): string => env[name] ?? '';
  const missing: string[] = [];
  const need = (...names: string[]): void => {
    for (const name of names) if (!read(name)) missing.push(name);
  };

  if (!overrides.queue) need('WEBHOOK_QUEUE_URL');
  if (!overrides.scheduler) need('WEBHOOK_QUEUE_ARN', 'WEBHOOK_SCHEDULE_GROUP', 'WEBHOOK_SCHEDULER_ROLE_ARN');
  const localKeys = !read('WEBHOOK_KMS_KEY_ID') && !!read('WEBHOOK_LOCAL_KEY_FILE');
  if (!overrides.keys && !localKeys) need('WEBHOOK_KMS_KEY_ID');
  if (missing.length > 0) {
    throw new Error(`webhook ports are not configured: set ${missing.join(', ')} (or install stand-ins with setPorts)`);
  }

  return {
    queue: overrides.queue ?? new SqsQueue({ queueUrl: read('WEBHOOK_QUEUE_URL'), client: (sqs ??= new SQSClient(awsClientOptions())) }),
    scheduler:
      overrides.scheduler ??
      new EventBridgeScheduler({
        groupName: read('WEBHOOK_SCHEDULE_GROUP'),
        queueArn: read('WEBHOOK_QUEUE_ARN'),
        roleArn: read('WEBHOOK_SCHEDULER_ROLE_ARN'),
        client: (scheduler ??= new SchedulerClient(awsClientOptions())),
      }),
    keys:
      overrides.keys ??
      (localKeys
        ? new LocalKeyService({ keyFile: read('WEBHOOK_LOCAL_KEY_FILE') })
        : new KmsKeyService({ keyId: read('WEBHOOK_KMS_KEY_ID'), client: (kms ??= new KMSClient(awsClientOptions())) })),
  };
};

/**
 * The ports a handler uses: in the cloud built once per cold start from the environment
 * (WEBHOOK_QUEUE_URL, WEBHOOK_QUEUE_ARN, WEBHOOK_SCHEDULE_GROUP, WEBHOOK_SCHEDULER_ROLE_ARN,
 * WEBHOOK_KMS_KEY_ID or WEBHOOK_LOCAL_KEY_FILE); locally, the stand-ins setPorts installed.
 */
export function ports(): Ports {
  return (built ??= withWrappers(fromEnv()));
}

/** As registered from outside (shared/ports/wrappers.ts: the test run records each call); in the cloud, as built. */
const withWrappers = (p: Ports): Ports => ({ queue: wrapped('queue', p.queue), scheduler: wrapped('scheduler', p.scheduler), keys: wrapped('keys', p.keys) });

/** Replaces some ports; the others still come from the environment, on the next ports() call. */
export function setPorts(next: Partial<Ports>): void {
  overrides = { ...overrides, ...next };
  built = undefined;
}

/** Forgets stand-ins and built ports, and closes the SDK clients (tests, local stack stop). */
export function resetPorts(): void {
  overrides = {};
  built = undefined;
  for (const client of [sqs, scheduler, kms]) client?.destroy();
  sqs = undefined;
  scheduler = undefined;
  kms = undefined;
}
