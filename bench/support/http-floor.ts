import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A recorded answer: what the floor writes back, byte for byte. */
export interface FloorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers that belong to one connection or one moment, not to the answer. */
const perConnection = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

/** Fetches a path once and keeps its status, headers and body, for a floor to send back. */
export const recordAnswer = async (url: string): Promise<FloorAnswer> => {
  const response = await fetch(url);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!perConnection.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()) };
};

export interface HttpFloor {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The least an HTTP service can do for a request: a bare `node:http` server on 127.0.0.1 that
 * makes the table calls `answer` makes and writes the bytes it returns, with no routing table,
 * middleware, validation or rendering. A path measured against it pays for exactly those.
 */
export const startHttpFloor = async (answer: (path: string) => Promise<FloorAnswer>): Promise<HttpFloor> => {
  const server = createServer((req, res) => {
    answer(req.url ?? '/').then(
      ({ status, headers, body }) => res.writeHead(status, { ...headers, 'content-length': body.length }).end(body),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};
