import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { KMSClient } from '@aws-sdk/client-kms';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { awsClientOptions } from '../../../shared/ports/client-options.ts';
import { KmsKeyService } from '../../../shared/ports/key-service.ts';
import { SqsImportQueue } from '../../../shared/ports/import-queue.ts';
import { SqsQueue } from '../../../shared/ports/queue.ts';
import { EventBridgeScheduler } from '../../../shared/ports/scheduler.ts';

// Clients are made in beforeAll: the endpoint's port is known only once the server listens.

/**
 * A stand-in AWS endpoint: the real SDK signs, serializes and sends; the test sees the request as
 * AWS would and answers in AWS's response shape.
 */
interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}
type Reply = { status?: number; headers?: Record<string, string>; body: unknown };

let server: Server;
let endpoint: string;
let requests: Captured[] = [];
let answer: (request: Captured) => Reply;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method!, path: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined };
      requests.push(request);
      const reply = answer(request);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = [];
});

const clientConfig = () => ({
  endpoint,
  region: 'eu-west-1',
  credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  maxAttempts: 1,
});
const message = { tenantId: 'tenant-1', deliveryId: 'dlv_01' };

describe('SqsQueue (AWS JSON 1.0)', () => {
  const queueUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-attempts';
  let queue: SqsQueue;
  beforeAll(() => {
    queue = new SqsQueue({ queueUrl, client: new SQSClient(clientConfig()) });
  });

  it('sends SendMessage with the queue URL, the JSON message and the delay', async () => {
    answer = (r) => ({
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      // The SDK checks the body's MD5, as it would against SQS.
      body: { MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(r.body.MessageBody).digest('hex') },
    });
    await queue.send(message, 120);
    expect(requests).toHaveLength(1);
    const [r] = requests;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/');
    expect(r.headers['x-amz-target']).toBe('AmazonSQS.SendMessage');
    expect(r.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(r.headers.authorization).toContain('/eu-west-1/sqs/aws4_request');
    expect(r.body).toEqual({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: 120 });
    expect(JSON.parse(r.body.MessageBody)).toEqual(message);
  });

  it('sends DelaySeconds 0 when no delay is given, so a queue default never applies', async () => {
    await queue.send({ ...message, extra: 'not sent' } as typeof message);
    expect(requests[0].body).toEqual({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), DelaySeconds: 0 });
  });

  it('refuses a delay SQS would refuse, before any request', async () => {
    await expect(queue.send(message, 901)).rejects.toBeInstanceOf(RangeError);
    await expect(queue.send(message, -1)).rejects.toBeInstanceOf(RangeError);
    await expect(queue.send(message, 1.5)).rejects.toBeInstanceOf(RangeError);
    expect(requests).toHaveLength(0);
  });
});

describe('EventBridgeScheduler (REST-JSON)', () => {
  let scheduler: EventBridgeScheduler;
  beforeAll(() => {
    scheduler = new EventBridgeScheduler({
      groupName: 'webhook-retries',
      queueArn: 'arn:aws:sqs:eu-west-1:123456789012:webhook-attempts',
      roleArn: 'arn:aws:iam::123456789012:role/webhook-scheduler',
      client: new SchedulerClient(clientConfig()),
    });
  });
  const at = new Date('2026-11-22T16:30:00Z');

  it('creates a one-time UTC schedule that puts the message on the queue and deletes itself', async () => {
    answer = () => ({ body: { ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/webhook-retries/dlv_01-3' } });
    await scheduler.scheduleAt(message, at, 'dlv_01-3');
    expect(requests).toHaveLength(1);
    const [r] = requests;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/schedules/dlv_01-3');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.authorization).toContain('/eu-west-1/scheduler/aws4_request');
    expect(r.body).toMatchObject({
      GroupName: 'webhook-retries',
      ScheduleExpression: 'at(2026-11-22T16:30:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: 'arn:aws:sqs:eu-west-1:123456789012:webhook-attempts',
        RoleArn: 'arn:aws:iam::123456789012:role/webhook-scheduler',
        Input: JSON.stringify(message),
        RetryPolicy: { MaximumRetryAttempts: expect.any(Number), MaximumEventAgeInSeconds: expect.any(Number) },
      },
    });
    expect(r.body.Name).toBeUndefined(); // the name travels in the path only
    expect(JSON.parse(r.body.Target.Input)).toEqual(message);
  });

  it('rounds a time with milliseconds up to the next second, so a retry never runs early', async () => {
    answer = () => ({ body: { ScheduleArn: 'arn' } });
    await scheduler.scheduleAt(message, new Date('2026-11-22T16:30:00.250Z'), 'dlv_01-4');
    expect(requests[0].body.ScheduleExpression).toBe('at(2026-11-22T16:30:01)');
  });

  it('treats ConflictException (the schedule already exists) as success', async () => {
    answer = () => ({
      status: 409,
      headers: { 'x-amzn-errortype': 'ConflictException' },
      body: { Message: 'Schedule dlv_01-3 already exists.' },
    });
    await expect(scheduler.scheduleAt(message, at, 'dlv_01-3')).resolves.toBeUndefined();
    expect(requests).toHaveLength(1);
  });

  it('passes other errors on', async () => {
    answer = () => ({ status: 400, headers: { 'x-amzn-errortype': 'ValidationException' }, body: { Message: 'bad' } });
    await expect(scheduler.scheduleAt(message, at, 'dlv_01-3')).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('refuses a name Scheduler would refuse, before any request', async () => {
    await expect(scheduler.scheduleAt(message, at, 'a'.repeat(65))).rejects.toBeInstanceOf(RangeError);
    await expect(scheduler.scheduleAt(message, at, 'tenant/1')).rejects.toBeInstanceOf(RangeError);
    expect(requests).toHaveLength(0);
  });
});

describe('KmsKeyService (AWS JSON 1.1)', () => {
  const keyId = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  let keys: KmsKeyService;
  beforeAll(() => {
    keys = new KmsKeyService({ keyId, client: new KMSClient(clientConfig()) });
  });
  const context = { tenantId: 'tenant-1', endpointId: 'ep_1' };
  const plaintext = Buffer.alloc(32, 7);
  const blob = Buffer.from('wrapped-data-key-bytes');

  it('asks GenerateDataKey for an AES-256 key bound to the context', async () => {
    answer = () => ({
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: { CiphertextBlob: blob.toString('base64'), Plaintext: plaintext.toString('base64'), KeyId: keyId },
    });
    const key = await keys.generateDataKey(context);
    const [r] = requests;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/');
    expect(r.headers['x-amz-target']).toBe('TrentService.GenerateDataKey');
    expect(r.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(r.headers.authorization).toContain('/eu-west-1/kms/aws4_request');
    expect(r.body).toEqual({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context });
    expect(Buffer.from(key.plaintext).equals(plaintext)).toBe(true);
    expect(key.encrypted).toBe(blob.toString('base64'));
  });

  it('sends Decrypt with the blob, the key and the same context', async () => {
    answer = () => ({
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: { Plaintext: plaintext.toString('base64'), KeyId: keyId, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' },
    });
    const key = await keys.decrypt(blob.toString('base64'), context);
    const [r] = requests;
    expect(r.headers['x-amz-target']).toBe('TrentService.Decrypt');
    expect(r.body).toEqual({ CiphertextBlob: blob.toString('base64'), KeyId: keyId, EncryptionContext: context });
    expect(Buffer.from(key).equals(plaintext)).toBe(true);
  });

  it('passes a context mismatch (InvalidCiphertextException) on', async () => {
    answer = () => ({ status: 400, body: { __type: 'InvalidCiphertextException', message: '' } });
    await expect(keys.decrypt(blob.toString('base64'), { tenantId: 'other' })).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });
});

describe('SqsImportQueue (a standard queue with fair queues)', () => {
  it('sends each message with its fairness group: the tenant for import pages, the company for notices', async () => {
    const queue = new SqsImportQueue({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/record-imports', client: new SQSClient(clientConfig()) });
    answer = (r) => ({ headers: { 'content-type': 'application/x-amz-json-1.0' }, body: { MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(r.body.MessageBody).digest('hex') } });
    await queue.send({ tenantId: 'tenant-1', connectionId: 'c-1', importId: 'i-1', step: 3 });
    await queue.send({ kind: 'notices', origin: 'provider-chile-v1', clientCode: '76086428-5' }, 30);
    expect(requests.map((r) => [r.body.MessageGroupId, r.body.DelaySeconds])).toEqual([
      ['tenant-1', 0],
      ['notices#provider-chile-v1#76086428-5', 30],
    ]);
  });
});

describe('the ports\' AWS clients (awsClientOptions)', () => {
  it('give up on an endpoint that accepts the connection and never answers', async () => {
    // What a blackholed VPC endpoint looks like: without throwOnRequestTimeout the SDK only warns
    // and the call waits until the Lambda's own deadline.
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const client = new SQSClient({ ...clientConfig(), ...awsClientOptions(), maxAttempts: 1, endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
      const queue = new SqsImportQueue({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/record-imports', client });
      await expect(queue.send({ tenantId: 'tenant-1', connectionId: 'c-1', importId: 'i-1', step: 1 })).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(held.length).toBe(1);
    } finally {
      held.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 240_000);
});
