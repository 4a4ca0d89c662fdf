import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import { generate } from 'selfsigned';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
}

export interface Receiver {
  port: number;
  received: ReceivedRequest[];
  /** TLS receivers only: the SNI names clients sent. */
  serverNames: string[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, rawBody: string) => void;

const open: http.Server[] = [];

/** A real HTTP receiver on 127.0.0.1 that records each request's raw body before the handler answers. */
export function startReceiver(handler: Handler): Promise<Receiver> {
  return listen(http.createServer(), handler);
}

/** An HTTPS receiver whose certificate nobody trusts (self-signed, for localhost). */
export async function startSelfSignedReceiver(handler: Handler): Promise<Receiver> {
  const notAfterDate = new Date(Date.now() + 2 * 86_400_000);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, notAfterDate });
  const context = createSecureContext({ key: pems.private, cert: pems.cert });
  const serverNames: string[] = [];
  const server = https.createServer({
    key: pems.private,
    cert: pems.cert,
    SNICallback: (name, done) => {
      serverNames.push(name);
      done(null, context);
    },
  });
  return listen(server, handler, serverNames);
}

/** A port that was just in use and is now closed, so nothing answers on it. */
export async function closedPort(): Promise<number> {
  const receiver = await startReceiver((_req, res) => res.end());
  await receiver.close();
  return receiver.port;
}

export async function closeAll(): Promise<void> {
  await Promise.all(
    open.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

function listen(server: http.Server, handler: Handler, serverNames: string[] = []): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawBody });
      handler(req, res, rawBody);
    });
  });
  open.push(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      const close = () =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      resolve({ port, received, serverNames, close });
    });
  });
}
