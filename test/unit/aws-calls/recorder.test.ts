import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { callsOf } from '../../../shared/aws-calls/dynamodb-calls.ts';
import { currentFunction, invokedAs, OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { recordingKeys } from '../../../shared/aws-calls/port-calls.ts';
import { recordCall, recordCallsTo, testFrameOf } from '../../../shared/aws-calls/recorder.ts';
import { LocalKeyService } from '../../../shared/ports/key-service.ts';

const file = join(tmpdir(), `aws-calls-${process.pid}-${Date.now()}.jsonl`);
const lines = () => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
let runSink: string | undefined;
beforeEach(() => {
  runSink = recordCallsTo(file);
});
afterEach(() => {
  recordCallsTo(runSink);
  rmSync(file, { force: true });
});

describe('the DynamoDB calls IAM authorises', () => {
  const tableName = process.env.TABLE_NAME ?? 'delivery-ops';

  it('names a transaction as the item actions of its parts, with their partition keys', () => {
    const calls = callsOf('TransactWriteCommand', {
      TransactItems: [
        { Put: { TableName: tableName, Item: { pk: 'T#1', sk: 'A' } } },
        { Update: { TableName: tableName, Key: { pk: { S: 'T#2' }, sk: { S: 'B' } } } },
        { Delete: { TableName: tableName, Key: { pk: 'T#3', sk: 'C' } } },
        { ConditionCheck: { TableName: tableName, Key: { pk: 'T#4', sk: 'D' } } },
      ],
    });
    expect(calls.map((c) => [c.action, c.context?.['dynamodb:LeadingKeys']])).toEqual([
      ['dynamodb:PutItem', ['T#1']],
      ['dynamodb:UpdateItem', ['T#2']],
      ['dynamodb:DeleteItem', ['T#3']],
      ['dynamodb:ConditionCheckItem', ['T#4']],
    ]);
  });

  it('names an index query by its index and the partition its key condition reads', () => {
    const [call] = callsOf('QueryCommand', {
      TableName: tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: '#p = :pk AND gsi2sk < :cutoff',
      ExpressionAttributeNames: { '#p': 'gsi2pk' },
      ExpressionAttributeValues: { ':pk': 'DUE#1', ':cutoff': 'x' },
    });
    expect(call).toMatchObject({ action: 'dynamodb:Query', resource: { kind: 'dynamodb-table', index: 'gsi2' }, context: { 'dynamodb:LeadingKeys': ['DUE#1'] } });
  });

  it('names the table by the setting that holds its name, and any other table by its name', () => {
    const before = process.env.TABLE_NAME;
    onTestFinished(() => {
      process.env.TABLE_NAME = before;
    });
    process.env.TABLE_NAME = 'recorded-table';
    expect(callsOf('GetCommand', { TableName: 'recorded-table', Key: { pk: 'a' } })[0]!.resource).toEqual({ kind: 'dynamodb-table', setting: 'TABLE_NAME' });
    expect(callsOf('GetCommand', { TableName: 'elsewhere', Key: { pk: 'a' } })[0]!.resource).toEqual({ kind: 'dynamodb-table', name: 'elsewhere' });
  });
});

describe('recording', () => {
  it('writes each call with the function it ran as, through awaits; one a test makes itself counts as the operator', async () => {
    const handler = invokedAs('webhook-worker', async () => {
      await new Promise((r) => setTimeout(r, 1));
      recordCall({ action: 'sqs:SendMessage', resource: { kind: 'sqs-queue', setting: 'WEBHOOK_QUEUE_URL' } });
      return currentFunction();
    });
    expect(await handler()).toBe('webhook-worker');
    await runAs('orders', async () => recordCall({ action: 'dynamodb:GetItem', resource: { kind: 'dynamodb-table', setting: 'TABLE_NAME' } }));
    recordCall({ action: 'dynamodb:Scan', resource: { kind: 'dynamodb-table', setting: 'TABLE_NAME' } });
    expect(lines().map((l) => [l.fn, l.action])).toEqual([
      ['webhook-worker', 'sqs:SendMessage'],
      ['orders', 'dynamodb:GetItem'],
      [OPERATOR, 'dynamodb:Scan'],
    ]);
    expect(lines()[2]!.origin).toContain('test/unit/aws-calls/recorder.test.ts');
  });

  it('takes a frame for a test’s only under the checkout’s own test folder, wherever the checkout lies', () => {
    const root = '/home/ci/test/delivery-ops/';
    // A timer in project code, in a checkout under a folder named test: no test made this call.
    const timer = ['at sweep (/home/ci/test/delivery-ops/functions/webhooks/sweeper.ts:12:5)', 'at listOnTimeout (node:internal/timers:581:17)'];
    expect(testFrameOf(timer, root)).toBeUndefined();
    expect(testFrameOf(['at seed (/home/ci/test/delivery-ops/test/support/care-fleet.ts:3:1)', ...timer], root)).toBeUndefined();
    const fromTest = 'at file:///home/ci/test/delivery-ops/test/e2e/care.test.ts:40:7';
    expect(testFrameOf([...timer, fromTest], root)).toBe(fromTest);
    expect(testFrameOf(['at run (/home/ci/test/delivery-ops/test/e2e/care.test.ts:40:7)'], root)).toBe('at run (/home/ci/test/delivery-ops/test/e2e/care.test.ts:40:7)');
  });

  it('records a key service call with its encryption context and leaves the port working', async () => {
    const keyFile = join(tmpdir(), `aws-calls-key-${process.pid}-${Date.now()}`);
    onTestFinished(() => rmSync(keyFile, { force: true }));
    const keys = recordingKeys(new LocalKeyService({ keyFile }));
    expect(keys).toBeInstanceOf(LocalKeyService);
    const context = { tenantId: 't', endpointId: 'e', secretId: 's' };
    const { encrypted } = await runAs('webhooks', () => keys.generateDataKey(context));
    await runAs('webhook-worker', () => keys.decrypt(encrypted, context));
    expect(lines()).toEqual([
      expect.objectContaining({ fn: 'webhooks', action: 'kms:GenerateDataKey', context: expect.objectContaining({ 'kms:EncryptionContextKeys': ['tenantId', 'endpointId', 'secretId'], 'kms:EncryptionContext:secretId': 's' }) }),
      expect.objectContaining({ fn: 'webhook-worker', action: 'kms:Decrypt', resource: { kind: 'kms-key', setting: 'WEBHOOK_KMS_KEY_ID' } }),
    ]);
  });
});
