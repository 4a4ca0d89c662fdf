import type { IncomingMessage, ServerResponse } from 'node:http';
import { tooManyRequestsPage } from '../../functions/tracking/page.ts';
import { pageHeaders } from '../../functions/tracking/page-style.ts';
import { languageOf } from '../../functions/tracking/texts.ts';
import type { LocalRoute } from './gateway.ts';

const DEFAULT_PER_MINUTE = 120;

/**
 * The local stand-in for the WAF rate rule on the two public tracking routes: a fixed one-minute
 * window per client address. Over the limit it answers 429 with Retry-After (problem+json for
 * /v1/track/*, an HTML page for /t/*); otherwise the request passes on to the handlers.
 */
export const trackingRateLimit = (): LocalRoute => {
  const windows = new Map<string, { minute: number; hits: number }>();
  return async (req: IncomingMessage, _body: Buffer, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const page = path.startsWith('/t/');
    if (!page && !path.startsWith('/v1/track/')) return false;
    const limit = Number(process.env.TRACKING_RATE_LIMIT_PER_MINUTE ?? DEFAULT_PER_MINUTE) || DEFAULT_PER_MINUTE;
    const nowSeconds = Date.now() / 1000;
    const minute = Math.floor(nowSeconds / 60);
    const address = req.socket.remoteAddress ?? 'unknown';
    const window = windows.get(address);
    const current = window && window.minute === minute ? window : { minute, hits: 0 };
    current.hits += 1;
    windows.set(address, current);
    if (windows.size > 10_000) for (const [key, w] of windows) if (w.minute < minute) windows.delete(key);
    if (current.hits <= limit) return false;
    const retryAfter = Math.max(1, Math.ceil((minute + 1) * 60 - nowSeconds));
    if (page) {
      const html = tooManyRequestsPage(languageOf(req.headers['accept-language']), retryAfter);
      res.writeHead(429, { ...pageHeaders('no-store'), 'retry-after': String(retryAfter) }).end(html);
    } else {
      const problem = { type: 'urn:delivery-ops:problem:rate_limited', title: 'Too many requests', status: 429, detail: `Too many requests from this address; retry in ${retryAfter} s.`, code: 'rate_limited' };
      res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': String(retryAfter), 'cache-control': 'no-store' }).end(JSON.stringify(problem));
    }
    return true;
  };
};
