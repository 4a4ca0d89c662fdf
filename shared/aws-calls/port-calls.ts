import type { ImportQueuePort } from '../ports/import-queue.ts';
import type { PreviewQueuePort } from '../ports/preview-queue.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { QueuePort } from '../ports/queue.ts';
import type { SchedulerPort } from '../ports/scheduler.ts';
import type { SecretsPort } from '../ports/secrets.ts';
import type { PortWrappers } from '../ports/wrappers.ts';
import { recordDynamoDbCalls } from './dynamodb-calls.ts';
import { encryptionContextKeys, recording, recordCall, settingHolding } from './recorder.ts';

/**
 * Calls `before` with a method's arguments ahead of each call of it. A proxy rather than a new
 * object, so the port stays what it was (same class, same fields) for code that looks at it.
 */
/** One hook per method of the port's interface: a method added to a port does not compile until its call is recorded. */
type Hooks<T> = { [K in keyof T]-?: T[K] extends (...args: infer A) => unknown ? (...args: A) => void : never };

const beforeEach = <T extends object>(target: T, hooks: Hooks<T>): T =>
  new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      const hook = hooks[property as keyof T] as ((...args: unknown[]) => void) | undefined;
      if (!hook || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        hook(...args);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });

/**
 * The ports' AWS calls, recorded whatever stands behind the port (the AWS adapter or a local
 * stand-in), under the setting the AWS adapter is configured from (shared/ports/registry.ts).
 */
export const recordingQueue = (queue: QueuePort): QueuePort =>
  beforeEach(queue, {
    send: () => recordCall({ action: 'sqs:SendMessage', resource: { kind: 'sqs-queue', setting: 'WEBHOOK_QUEUE_URL' } }),
  });

export const recordingImportQueue = (queue: ImportQueuePort): ImportQueuePort =>
  beforeEach(queue, {
    send: () => recordCall({ action: 'sqs:SendMessage', resource: { kind: 'sqs-queue', setting: 'IMPORT_QUEUE_URL' } }),
  });

export const recordingPreviewQueue = (queue: PreviewQueuePort): PreviewQueuePort =>
  beforeEach(queue, {
    send: () => recordCall({ action: 'sqs:SendMessage', resource: { kind: 'sqs-queue', setting: 'PREVIEW_QUEUE_URL' } }),
  });

export const recordingScheduler = (scheduler: SchedulerPort): SchedulerPort =>
  beforeEach(scheduler, {
    scheduleAt: (_message, _at, name) => {
      recordCall({ action: 'scheduler:CreateSchedule', resource: { kind: 'scheduler-schedule', setting: 'WEBHOOK_SCHEDULE_GROUP', schedule: name } });
      // The schedule's target role is passed to Scheduler with the request.
      recordCall({
        action: 'iam:PassRole',
        resource: { kind: 'iam-role', setting: 'WEBHOOK_SCHEDULER_ROLE_ARN' },
        context: { 'iam:PassedToService': 'scheduler.amazonaws.com' },
      });
    },
  });

export const recordingKeys = (keys: KeyService): KeyService =>
  beforeEach(keys, {
    generateDataKey: (context) =>
      recordCall({ action: 'kms:GenerateDataKey', resource: { kind: 'kms-key', setting: 'WEBHOOK_KMS_KEY_ID' }, context: encryptionContextKeys(context) }),
    decrypt: (_encrypted, context) =>
      recordCall({ action: 'kms:Decrypt', resource: { kind: 'kms-key', setting: 'WEBHOOK_KMS_KEY_ID' }, context: encryptionContextKeys(context) }),
  });

/** Secrets are named by ARN; the setting that holds that ARN is how the function found it. */
export const recordingSecrets = (secrets: SecretsPort): SecretsPort =>
  beforeEach(secrets, {
    read: (secretId) => {
      const setting = settingHolding(secretId);
      recordCall({ action: 'secretsmanager:GetSecretValue', resource: { kind: 'secret', ...(setting ? { setting } : { name: secretId }) } });
    },
  });

/** Wraps only while a recording is on: with none, the port is handed out as built. */
const whileRecording =
  <T>(wrap: (port: T) => T) =>
  (port: T): T =>
    recording() ? wrap(port) : port;

/** Every port the hook knows: a port added to WrappablePorts does not compile until its calls are recorded. */
const everyPort: Required<PortWrappers['ports']> = {
  queue: whileRecording(recordingQueue),
  importQueue: whileRecording(recordingImportQueue),
  previewQueue: whileRecording(recordingPreviewQueue),
  scheduler: whileRecording(recordingScheduler),
  keys: whileRecording(recordingKeys),
  secrets: whileRecording(recordingSecrets),
};

/**
 * What the test run registers in front of the ports (shared/ports/wrappers.ts, from
 * test/support/record-aws-calls.ts): every port call and table request recorded for the IAM check.
 */
export const awsCallRecording: PortWrappers = { ports: everyPort, tableClient: [recordDynamoDbCalls] };
