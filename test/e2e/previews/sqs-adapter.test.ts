import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsPreviewQueue } from '../../../shared/ports/preview-queue.ts';

/** A stand-in SQS endpoint: the real SDK signs and sends; the test sees the request as SQS would. */
let server: Server;
let endpoint: string;
const requests: { target: string; body: any }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ target: String(req.headers['x-amz-target']), body });
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ MessageId: 'm-1', MD5OfMessageBody: createHash('md5').update(body.MessageBody).digest('hex') }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('SqsPreviewQueue', () => {
  it('sends the two ids only, with the tenant as the fairness group and no delay', async () => {
    const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/route-previews';
    const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' }, maxAttempts: 1 });
    const queue = new SqsPreviewQueue({ queueUrl, client });
    await queue.send({ tenantId: 'tenant-1', previewId: 'preview-1', extra: 'not sent' } as never);
    expect(requests).toEqual([
      {
        target: 'AmazonSQS.SendMessage',
        body: { QueueUrl: queueUrl, MessageBody: JSON.stringify({ tenantId: 'tenant-1', previewId: 'preview-1' }), DelaySeconds: 0, MessageGroupId: 'tenant-1' },
      },
    ]);
    client.destroy();
  });
});
