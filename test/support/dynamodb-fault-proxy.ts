import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What DynamoDB answers instead, for the operations (X-Amz-Target suffix) it is set for. */
export interface FaultAnswer {
  status: number;
  body: Record<string, unknown>;
  /** Answer this many requests, then let the operation through again; every one when absent. */
  times?: number;
  /** Only requests whose JSON body this accepts (a poisoned shard iterator, say); all when absent. */
  match?: (request: Record<string, unknown>) => boolean;
}

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * Sits between the handlers and DynamoDB Local and answers chosen operations as the cloud does
 * when it throttles (DynamoDB Local never throttles), in DynamoDB's own JSON error shape, so the
 * SDK builds its real error objects. Everything else passes through unchanged.
 */
export class DynamoDbFaultProxy {
  readonly faults = new Map<string, FaultAnswer>();
  private server?: Server;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    const target = new URL(this.target);
    this.server = createServer(async (req, res) => {
      const body = await readAll(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
      const fault = this.faults.get(operation);
      if (fault && (!fault.match || fault.match(JSON.parse(body.toString('utf8') || '{}')))) {
        if (fault.times !== undefined && --fault.times <= 0) this.faults.delete(operation);
        res.writeHead(fault.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault-proxy' }).end(JSON.stringify(fault.body));
        return;
      }
      const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => res.destroy(error));
      upstream.end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A transaction DynamoDB cancelled because a table or index was over its throughput. */
export const throttledTransaction = (items: number, reason: 'ThrottlingError' | 'ProvisionedThroughputExceeded'): FaultAnswer => ({
  status: 400,
  body: {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${[reason, ...Array(items - 1).fill('None')].join(', ')}]`,
    CancellationReasons: [{ Code: reason, Message: 'Throughput exceeds the current capacity of your table or index.' }, ...Array.from({ length: items - 1 }, () => ({ Code: 'None' }))],
  },
});

/** A transaction DynamoDB cancelled because another one touched item `index` at the same moment. */
export const conflictedTransaction = (items: number, index: number, times = 1): FaultAnswer => ({
  status: 400,
  times,
  body: {
    __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
    Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
    CancellationReasons: Array.from({ length: items }, (_, i) => (i === index ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' })),
  },
});
