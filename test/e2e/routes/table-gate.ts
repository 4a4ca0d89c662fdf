import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resetTableClient } from '../../../shared/table/client.ts';

/**
 * What the gate does with one DynamoDB request it matches: `fail` answers it as a request that
 * never reached the table (the caller then dies there, as a crashed Lambda would); `hold` keeps
 * it until the test opens the gate, then lets it through.
 */
export type GateRule =
  | { operation: string; match: (body: Record<string, unknown>) => boolean; action: 'fail' }
  | { operation: string; match: (body: Record<string, unknown>) => boolean; action: 'hold'; reached: () => void; opened: Promise<void> };

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * Sits between the handlers and DynamoDB Local (like test/support/dynamodb-fault-proxy.ts) and
 * applies each rule once, to the first request it matches; everything else passes unchanged.
 */
export class TableGate {
  readonly rules: GateRule[] = [];
  private server?: Server;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    const target = new URL(this.target);
    this.server = createServer(async (req, res) => {
      const body = await readAll(req);
      const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
      const parsed = () => JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const index = this.rules.findIndex((rule) => rule.operation === operation && rule.match(parsed()));
      if (index >= 0) {
        const [rule] = this.rules.splice(index, 1);
        if (rule.action === 'fail') {
          const answer = { __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: 'table gate: the caller dies here' };
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'table-gate' }).end(JSON.stringify(answer));
          return;
        }
        rule.reached();
        await rule.opened;
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

/** Points the handlers' table client at the gate for the duration of `body`. */
export const throughGate = async <T>(tableEndpoint: string, body: (gate: TableGate) => Promise<T>): Promise<T> => {
  const gate = new TableGate(tableEndpoint);
  const original = process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_ENDPOINT = await gate.start();
  resetTableClient();
  try {
    return await body(gate);
  } finally {
    process.env.DYNAMODB_ENDPOINT = original;
    resetTableClient();
    await gate.stop();
  }
};

/** The n-th (1-based) TransactWriteItems that names this text in any of its items' keys. */
export const nthTransactionNaming = (text: string, n: number) => {
  let seen = 0;
  return (body: Record<string, unknown>): boolean => {
    if (!JSON.stringify(body.TransactItems ?? []).includes(text)) return false;
    seen += 1;
    return seen === n;
  };
};
