import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** What a verified delivery was about: `<type>:<orderId or stopId>`, the key the mix expects. */
export const eventKey = (type: string, data: { orderId?: string; stopId?: string }): string =>
  `${type}:${type === 'field.stop.delivered' ? data.stopId : data.orderId}`;

/**
 * The loopback receiver of the load run: POST /hooks/<tenant index>, verified with that tenant's
 * destination secret as any Standard Webhooks receiver would (signature and timestamp). Keeps a
 * count per event, not the bodies, so a 10-minute soak does not grow this process.
 */
export class LoadReceiver {
  readonly arrivals = new Map<string, number>();
  refused = 0;
  private readonly verifiers = new Map<string, Webhook>();
  private server?: Server;
  url = '';

  trust(index: number, secret: string): void {
    this.verifiers.set(String(index), new Webhook(secret));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verifier = this.verifiers.get((req.url ?? '').split('/').pop() ?? '');
        try {
          if (!verifier) throw new Error('unknown destination');
          const payload = verifier.verify(body, req.headers as Record<string, string>) as { type: string; data: { orderId?: string; stopId?: string } };
          const key = eventKey(payload.type, payload.data);
          this.arrivals.set(key, (this.arrivals.get(key) ?? 0) + 1);
          res.writeHead(204).end();
        } catch {
          this.refused++;
          res.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((ok) => this.server!.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
    return this;
  }

  /** The expected events that have not arrived (yet). */
  missing(expected: Iterable<string>): string[] {
    return [...expected].filter((key) => !this.arrivals.has(key));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((ok) => (this.server ? this.server.close(() => ok()) : ok()));
  }
}
