import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Pluggable } from '@smithy/types';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { importQueue, setImportQueue, type ImportQueueMessage } from '../../../shared/ports/import-queue.ts';
import { previewQueue, setPreviewQueue, type PreviewMessage } from '../../../shared/ports/preview-queue.ts';
import type { QueueMessage } from '../../../shared/ports/queue.ts';
import { ports, resetPorts, setPorts } from '../../../shared/ports/registry.ts';
import { LocalKeyService } from '../../../shared/ports/key-service.ts';
import { LocalSecrets, secrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { wrapPorts, type PortWrappers } from '../../../shared/ports/wrappers.ts';
import { resetTableClient, table } from '../../../shared/table/client.ts';

const root = join(import.meta.dirname, '../../..');
const sources = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));

describe('what wraps the ports stands outside them (issue 29)', () => {
  it('no port and not the table client imports the recording of AWS calls', () => {
    const importers = [...sources('shared/ports'), ...sources('shared/table')].filter((file) =>
      /from '[./]*\/aws-calls\//.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(importers.map((file) => relative(root, join(root, file)))).toEqual([]);
  });
});

describe('the hook the ports expose', () => {
  // The test run's own wrappers (its call recording) are put back after each test.
  let runWrappers: PortWrappers;
  const seen: string[] = [];
  beforeEach(() => {
    seen.length = 0;
  });
  afterEach(() => {
    wrapPorts(runWrappers);
    resetPorts();
    setImportQueue(undefined);
    setPreviewQueue(undefined);
    setSecrets(undefined);
    resetTableClient();
  });

  it('hands out every port through the wrapper registered for it, whatever stands behind it', async () => {
    runWrappers = wrapPorts({
      ports: {
        queue: (port) => ({ send: (message, delay) => (seen.push('queue'), port.send(message, delay)) }),
        scheduler: (port) => ({ scheduleAt: (message, at, name) => (seen.push(`schedule ${name}`), port.scheduleAt(message, at, name)) }),
        keys: (port) => ({ generateDataKey: (c) => (seen.push('key'), port.generateDataKey(c)), decrypt: (e, c) => port.decrypt(e, c) }),
        importQueue: (port) => ({ send: (message, delay) => (seen.push('import'), port.send(message, delay)) }),
        previewQueue: (port) => ({ send: (message) => (seen.push('preview'), port.send(message)) }),
        secrets: (port) => ({ read: (id, stage, options) => (seen.push(`secret ${id}`), port.read(id, stage, options)) }),
      },
    });
    const sent: unknown[] = [];
    const keyFile = join(tmpdir(), `wrappers-test-${process.pid}.key`);
    onTestFinished(() => rmSync(keyFile, { force: true }));
    setPorts({
      queue: { send: async (message: QueueMessage) => void sent.push(message) },
      scheduler: { scheduleAt: async () => {} },
      keys: new LocalKeyService({ keyFile }),
    });
    setImportQueue({ send: async (message: ImportQueueMessage) => void sent.push(message) });
    setPreviewQueue({ send: async (message: PreviewMessage) => void sent.push(message) });
    const local = new LocalSecrets();
    local.set('arn:secret', 'value');
    setSecrets(local);

    await ports().queue.send({ tenantId: 't', deliveryId: 'd' });
    await ports().scheduler.scheduleAt({ tenantId: 't', deliveryId: 'd' }, new Date(), 'd-2');
    await ports().keys.generateDataKey({ tenantId: 't' });
    await importQueue().send({ tenantId: 't', connectionId: 'c', importId: 'i', step: 0 });
    await previewQueue().send({ tenantId: 't', previewId: 'p' });
    expect(await secrets().read('arn:secret')).toBe('value');

    expect(seen).toEqual(['queue', 'schedule d-2', 'key', 'import', 'preview', 'secret arn:secret']);
    expect(sent).toHaveLength(3); // the wrapped ports still reach what stands behind them
  });

  it('hands out the ports as built when nothing is registered', () => {
    runWrappers = wrapPorts(undefined);
    const queue = { send: async () => {} };
    setImportQueue(queue);
    const local = new LocalSecrets();
    setSecrets(local);
    expect(importQueue()).toBe(queue);
    expect(secrets()).toBe(local);
  });

  it('adds the registered middleware to the table client it builds', async () => {
    // Answers at the first step, before any connection: the request never leaves the process.
    const answering: Pluggable<any, any> = {
      applyToStack: (stack) =>
        stack.add(((_next: unknown, context: { commandName?: string }) => async (args: { input: { Key: { pk: string } } }) => {
          seen.push(`${context.commandName} ${args.input.Key.pk}`);
          return { output: { Item: { pk: args.input.Key.pk } }, response: {} };
        }) as never, { step: 'initialize', priority: 'high', name: 'answerInTest' }),
    };
    runWrappers = wrapPorts({ tableClient: [answering] });
    resetTableClient();
    const { Item } = await table().send(new GetCommand({ TableName: 'delivery-ops', Key: { pk: 'T#1', sk: 'A' } }));
    expect(Item).toEqual({ pk: 'T#1' });
    expect(seen).toEqual(['GetItemCommand T#1']);
  });
});
