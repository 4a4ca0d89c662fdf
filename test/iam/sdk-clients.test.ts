import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The IAM check sees only calls made through the table client and the ports, where the test run's
 * recording stands in front of them (shared/ports/wrappers.ts). An AWS SDK client made anywhere else in handler code would call AWS unseen.
 */
const RECORDED_CLIENT_FILES = [
  'shared/table/client.ts', // tableClientMiddleware: recordDynamoDbCalls in a test run
  'shared/ports/registry.ts', // queue, scheduler and keys, handed out through wrapped()
  'shared/ports/queue.ts',
  'shared/ports/scheduler.ts',
  'shared/ports/key-service.ts',
  'shared/ports/secrets.ts', // wrapped() in secrets()
  'shared/ports/import-queue.ts', // wrapped() in importQueue()
  'shared/ports/preview-queue.ts', // wrapped() in previewQueue()
  'functions/edge/origin-secret-rotation.ts', // UNRECORDED_FUNCTIONS in deployed-functions.ts says why
];

const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

it('makes AWS SDK clients only where their calls are recorded', () => {
  const makers = [...sources('functions'), ...sources('shared')]
    .filter((file) => /new \w+Client\(/.test(readFileSync(join(root, file), 'utf8')))
    .map((file) => relative(root, join(root, file)));
  expect(makers.filter((file) => !RECORDED_CLIENT_FILES.includes(file))).toEqual([]);
});
