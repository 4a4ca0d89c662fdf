import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { describeError, outcomeForError } from './classify-error.ts';
import type { AttemptOutcome } from './outcomes.ts';
import { parseRetryAfter } from './retry-after.ts';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from './response-excerpt.ts';

export interface ExchangeInput {
  url: URL;
  /** URL host name without IPv6 brackets: the SNI name and the name the certificate must match. */
  hostname: string;
  /** Already checked against the destination rules; the socket may go to these and nowhere else. */
  addresses: string[];
  body: string;
  headers: Record<string, string>;
  maxResponseBytes: number;
  deadline: Deadline;
}

export interface ExchangeResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  retryAfterSeconds: number | null;
  /** The start of the receiver's body as text (decisions 5), null without one. */
  responseExcerpt: string | null;
  detail: string | null;
}

export interface Deadline {
  readonly expired: boolean;
  readonly timeoutMs: number;
  /** Called once when the time is up (replaces any earlier callback). */
  onExpire(callback: () => void): void;
}

/** One POST, no redirects followed, response body read only up to the limit. Never rejects. */
export function exchange(input: ExchangeInput): Promise<ExchangeResult> {
  const { url, hostname, addresses, deadline, maxResponseBytes } = input;
  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let settled = false;
    // Only the head of the body is kept; the rest is counted, never held.
    const head: Buffer[] = [];
    let headBytes = 0;
    const settle = (outcome: AttemptOutcome, detail: string, retryAfterSeconds: number | null = null) => {
      if (settled) return;
      settled = true;
      resolve({ outcome, statusCode, retryAfterSeconds, responseExcerpt: responseExcerpt(Buffer.concat(head)), detail });
    };

    // Hands Node the checked addresses instead of asking DNS again, so a rebinding answer cannot slip in
    // between check and connect. With several addresses Node's happy-eyeballs asks for `all`.
    const lookup: LookupFunction = (_name, options, callback) => {
      const entries = addresses.map((address) => ({ address, family: isIP(address) }));
      if (options.all) callback(null, entries);
      else callback(null, entries[0].address, entries[0].family);
    };

    const isHttps = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: 'POST',
      host: hostname,
      port: url.port === '' ? (isHttps ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: requestHeaders(input),
      // A fresh socket per attempt: a pooled one would skip the lookup above.
      agent: false,
      lookup,
    };
    if (isHttps) {
      // Explicit, so NODE_TLS_REJECT_UNAUTHORIZED=0 in some environment cannot turn verification off.
      options.rejectUnauthorized = true;
      if (isIP(hostname) === 0) options.servername = hostname;
    }

    const req = (isHttps ? https : http).request(options);
    deadline.onExpire(() => {
      settle('timeout', `no complete response within ${deadline.timeoutMs} ms`);
      req.destroy();
    });
    req.on('error', (error) => {
      settle(deadline.expired ? 'timeout' : outcomeForError(error), describeError(error));
    });
    req.on('response', (res) => {
      statusCode = res.statusCode ?? null;
      const tooLarge = () => {
        settle('response_too_large', `response body larger than ${maxResponseBytes} bytes`);
        res.destroy();
        req.destroy();
      };
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxResponseBytes) return tooLarge();
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // One byte past the excerpt tells whether the cut splits a character.
        if (headBytes <= RESPONSE_EXCERPT_BYTES) {
          const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES + 1 - headBytes);
          head.push(part);
          headBytes += part.length;
        }
        if (received > maxResponseBytes) tooLarge();
      });
      res.on('end', () => {
        const status = statusCode ?? 0;
        const retryAfter = status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after']) : null;
        settle(status >= 200 && status < 300 ? 'success' : 'http_status', statusDetail(status, res), retryAfter);
      });
      res.on('error', (error) => settle(deadline.expired ? 'timeout' : outcomeForError(error), describeError(error)));
      res.on('close', () => {
        if (!res.complete) settle('connection_reset', 'the connection closed before the response was complete');
      });
    });
    req.end(input.body);
  });
}

function requestHeaders(input: ExchangeInput): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  // The URL decides these, whatever the caller passed.
  headers.host = input.url.host;
  headers['content-length'] = String(Buffer.byteLength(input.body));
  delete headers['transfer-encoding'];
  delete headers.connection;
  return headers;
}

function statusDetail(status: number, res: http.IncomingMessage): string {
  const reason = (res.statusMessage ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 80);
  const text = `HTTP ${status}${reason ? ` ${reason}` : ''}`;
  return status >= 300 && status < 400 ? `${text} (redirect not followed)` : text;
}
