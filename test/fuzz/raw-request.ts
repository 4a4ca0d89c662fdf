import { request } from 'node:http';

export interface RawRequest {
  method: string;
  path: string;
  /** A header given as a list is sent once per value (a repeated header). */
  headers: Record<string, string | string[]>;
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** node:http rather than fetch: fetch folds repeated headers and refuses some that attackers send. */
export const send = (baseUrl: string, req: RawRequest): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const outgoing = request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers: { ...req.headers, ...(req.body !== undefined ? { 'content-length': Buffer.byteLength(req.body) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (req.body !== undefined) outgoing.write(req.body);
    outgoing.end();
  });
