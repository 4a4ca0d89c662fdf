import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { envelopeViolation } from './event-schemas.ts';
import { WAIT_LIMIT_MS } from './wait-limit.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A real webhook receiver on 127.0.0.1: records every request with its raw body and answers
 * as the test says (2xx by default). Every notification it receives is checked against its
 * kind's schema in the event-type catalogue; `stop()` (each file's afterAll) fails on a mismatch,
 * so each event the e2e suite delivers is held to the schema receivers generate code from.
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly schemaViolations: string[] = [];
  reply: (request: Received) => Reply = () => ({ status: 204 });
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.received.push(request);
        const violation = envelopeViolation(request.body);
        if (violation) this.schemaViolations.push(violation);
        const answer = this.reply(request);
        res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
    return this;
  }

  async waitFor(count: number, timeoutMs = WAIT_LIMIT_MS): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.received.length} of ${count} requests`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.received;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
    if (this.schemaViolations.length > 0) throw new Error(`notifications that do not match their kind's schema: ${this.schemaViolations.join('; ')}`);
  }
}

export const eventually = async <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = WAIT_LIMIT_MS): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
