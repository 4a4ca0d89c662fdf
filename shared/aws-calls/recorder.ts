import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { currentFunction } from '../runtime/current-function.ts';
import { OPERATOR } from './identity.ts';

/**
 * A resource as the deployed function would name it. Locally names differ (a table per test
 * file, no queue URL, a key file instead of a KMS key), so a resource is recorded by the setting
 * the function reads it from; the check resolves that setting from the function's environment
 * in the synthesized template. `name` is used when no setting holds the value.
 */
export interface RecordedResource {
  kind: 'dynamodb-table' | 'sqs-queue' | 'kms-key' | 'scheduler-schedule' | 'iam-role' | 'secret';
  setting?: string;
  name?: string;
  /** dynamodb-table: an index (`<table ARN>/index/<index>`). */
  index?: string;
  /** scheduler-schedule: the schedule's name inside the group the setting names. */
  schedule?: string;
}

export interface AwsCall {
  action: string;
  resource: RecordedResource;
  /** IAM condition context: `kms:EncryptionContext:<k>`, `kms:EncryptionContextKeys`, `dynamodb:LeadingKeys`, ... */
  context?: Record<string, string | string[]>;
}

export interface RecordedCall extends AwsCall {
  /** For a call made as no function: the test frame that made it. */
  origin?: string;
  /** The function the call ran as; undefined when no invoker said (a failure of the check). */
  fn?: string;
}

let sinkFile: string | undefined;

/**
 * Tests (test/support/record-aws-calls.ts) send every call to a JSONL file; nothing is recorded
 * otherwise. Returns the file calls went to before, so a test can put it back.
 */
export const recordCallsTo = (file: string | undefined): string | undefined => {
  const previous = sinkFile;
  sinkFile = file;
  if (file) mkdirSync(dirname(file), { recursive: true });
  return previous;
};

export const recording = (): boolean => sinkFile !== undefined;

/** Where a call made as no function came from: the first frame in a test file, else in the project. */
const frames = (): string[] => {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 100; // the test's frame lies below the SDK's and the handler's
  try {
    return (new Error().stack ?? '').split('\n').slice(1).map((frame) => frame.trim());
  } finally {
    Error.stackTraceLimit = limit;
  }
};
/** The checkout's root, as a path and as a file URL (frames show either). */
const checkoutRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The first frame in a test file of the checkout at `root`: under its own `test/` folder, not
 * `test/support/`. Only the part below the root counts, so a checkout under a folder named
 * `test` does not make every frame a test's.
 */
export const testFrameOf = (stack: string[], root = checkoutRoot): string | undefined => {
  const under = (frame: string, dir: string) => frame.includes(`${root}${dir}`) || frame.includes(`${pathToFileURL(root).href}${dir}`);
  return stack.find((frame) => under(frame, 'test/') && !under(frame, 'test/support/'));
};
const projectFrame = (stack: string[]): string | undefined =>
  stack.find((frame) => frame.includes('/') && !frame.includes('node_modules') && !frame.includes('/shared/aws-calls/') && !frame.includes('node:'));

export const recordCall = (call: AwsCall): void => {
  if (!sinkFile) return;
  const fn = currentFunction();
  // A test that calls code directly (a seed, a job run by hand) acts with its own credentials, as
  // an operator would: its calls are counted, not held against a role. The invokers' calls are,
  // so a function whose grants only such tests exercised shows up as granted and unused.
  const stack = fn === undefined ? frames() : [];
  const fromTest = testFrameOf(stack);
  const origin = fn === undefined ? (fromTest ?? projectFrame(stack)) : undefined;
  const line: RecordedCall = { fn: fn ?? (fromTest ? OPERATOR : undefined), ...call, ...(origin ? { origin } : {}) };
  // One short line per append: O_APPEND keeps lines of parallel writers whole.
  appendFileSync(sinkFile, `${JSON.stringify(line)}\n`);
};

/** The setting (environment variable) whose value is `value`, if any: how the cloud code found it. */
export const settingHolding = (value: string, preferred: string[] = []): string | undefined => {
  for (const name of preferred) if (process.env[name] === value) return name;
  return Object.keys(process.env).find((name) => process.env[name] === value);
};

/** `kms:EncryptionContext:<k>` for each pair, plus `kms:EncryptionContextKeys`, as KMS sets them. */
export const encryptionContextKeys = (context: Record<string, string>): Record<string, string | string[]> => ({
  ...Object.fromEntries(Object.entries(context).map(([k, v]) => [`kms:EncryptionContext:${k}`, v])),
  'kms:EncryptionContextKeys': Object.keys(context),
});
