import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { CompanyAccount, IdSequence } from './company.ts';
import { issueDocument } from './documents.ts';
import { FaultTable } from './faults.ts';
import { json, ProviderHttpError, type Answer } from './http.ts';
import type { OAuthProvider } from './oauth.ts';
import { readRoutes } from './reads.ts';
import { issueReturn } from './returns.ts';
import { createShipping } from './shippings.ts';

export const OAUTH_PREFIX = '/oauth';

export interface ServerState {
  base: string;
  oauth: OAuthProvider;
  ids: IdSequence;
  byToken: Map<string, CompanyAccount>;
  faults: FaultTable;
  requests: { method: string; path: string; status: number }[];
  rateLimit: number | null;
  now: () => number;
}

/** A real `node:http` server; every route answer goes through the fault table first. */
export class FakeServer {
  private readonly server: Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly recent = new Map<string, number[]>(); // accepted request times, by token

  constructor(private readonly state: ServerState) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.serve(req, res, Buffer.concat(chunks).toString('utf8')));
    });
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(port, host, ok);
    });
    return (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  private serve(req: IncomingMessage, res: ServerResponse, body: string): void {
    const method = req.method ?? 'GET';
    const entry = { method, path: req.url ?? '/', status: 0 };
    this.state.requests.push(entry);
    const url = new URL(req.url ?? '/', this.state.base);
    const paths = [url.pathname];
    if (url.pathname.startsWith(`${OAUTH_PREFIX}/`)) paths.push(url.pathname.slice(OAUTH_PREFIX.length));
    const fault = this.state.faults.take(method, paths);
    if (fault?.kind === 'reset') return void req.socket.destroy();
    if (fault?.kind === 'hang') return this.hold(res, fault.delayMs);
    if (fault?.kind === 'status') return this.send(res, entry, json(fault.status!, { error: `injected fault: ${fault.status}` }));
    const answer = this.answer(method, url, req, body);
    // Bad items as a provider might send them, into a page the route answered.
    if (fault?.kind === 'items' && Array.isArray((answer.body as { items?: unknown[] } | undefined)?.items)) (answer.body as { items: unknown[] }).items.push(...fault.items!);
    // An answer the provider sent half-made: applied, answered 2xx, no id to hold on to.
    if (fault?.kind === 'no_id' && answer.body && typeof answer.body === 'object') answer.body = { ...(answer.body as object), id: undefined };
    if (fault?.kind === 'timeout_after_apply') return this.hold(res, fault.delayMs);
    // Applied, then answered as failed: a 5xx says nothing about what the provider did.
    if (fault?.kind === 'status_after_apply') return this.send(res, entry, json(fault.status!, { error: `injected fault after applying: ${fault.status}` }));
    if (fault?.kind === 'delay') return this.later(fault.delayMs!, () => this.send(res, entry, answer));
    this.send(res, entry, answer);
  }

  /** Keeps the socket open without answering, until the client gives up or `delayMs` passes. */
  private hold(res: ServerResponse, delayMs?: number): void {
    if (delayMs !== undefined) this.later(delayMs, () => res.socket?.destroy());
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  private send(res: ServerResponse, entry: { status: number }, answer: Answer): void {
    if (res.destroyed) return;
    entry.status = answer.status;
    if (answer.html !== undefined) {
      res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8', ...answer.headers }).end(answer.html);
    } else if (answer.body === undefined) {
      res.writeHead(answer.status, answer.headers).end();
    } else {
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers }).end(JSON.stringify(answer.body));
    }
  }

  private answer(method: string, url: URL, req: IncomingMessage, body: string): Answer {
    try {
      if (url.pathname.startsWith(`${OAUTH_PREFIX}/`)) return this.oauthRoute(method, url, req, body);
      if (url.pathname.startsWith('/v1/')) return this.apiRoute(method, url, req, body);
      return json(404, { error: `no route ${url.pathname}` });
    } catch (error) {
      if (error instanceof ProviderHttpError) return json(error.status, { error: error.message });
      return json(500, { error: error instanceof Error ? error.message : 'internal error' });
    }
  }

  private oauthRoute(method: string, url: URL, req: IncomingMessage, body: string): Answer {
    const { oauth } = this.state;
    const route = `${method} ${url.pathname.slice(OAUTH_PREFIX.length)}`;
    if (route === 'GET /login') return oauth.loginPage(url, `${OAUTH_PREFIX}/login`);
    if (route === 'POST /login') return oauth.loginDecision(new URLSearchParams(body));
    if (route === 'GET /callback') return oauth.callbackPage(url);
    if (route === 'POST /gateway/oauth_response.json') return oauth.exchange(parseJson(req, body));
    return json(404, { error: `no route ${url.pathname}` });
  }

  private apiRoute(method: string, url: URL, req: IncomingMessage, body: string): Answer {
    const token = req.headers['access_token'];
    const account = typeof token === 'string' ? this.state.byToken.get(token) : undefined;
    if (!account) return json(401, { error: 'invalid access_token' });
    if (this.overRate(account.accessToken)) return { status: 429, headers: { 'retry-after': '1' }, body: { error: 'too many requests' } };
    const context = { account, ids: this.state.ids, base: this.state.base, nowSeconds: Math.floor(this.state.now() / 1000) };
    if (method === 'GET') return json(200, readRoutes(account, url, this.state.base));
    if (method === 'POST' && url.pathname === '/v1/documents.json') {
      const { created, document } = issueDocument(context, parseJson(req, body));
      return json(created ? 201 : 200, document);
    }
    if (method === 'POST' && url.pathname === '/v1/shippings.json') {
      const { created, shipping } = createShipping(context, parseJson(req, body));
      return json(created ? 201 : 200, shipping);
    }
    if (method === 'POST' && url.pathname === '/v1/returns.json') {
      const { created, answer } = issueReturn(context, parseJson(req, body));
      return json(created ? 201 : 200, answer);
    }
    return json(404, { error: `no route ${method} ${url.pathname}` });
  }

  /** About 10 requests a second per token (provider-chile.md); refused requests do not count. */
  private overRate(token: string): boolean {
    const limit = this.state.rateLimit;
    if (limit === null) return false;
    const now = this.state.now();
    const times = (this.recent.get(token) ?? []).filter((t) => t > now - 1000);
    if (times.length >= limit) {
      this.recent.set(token, times);
      return true;
    }
    times.push(now);
    this.recent.set(token, times);
    return false;
  }
}

const parseJson = (req: IncomingMessage, body: string): unknown => {
  if (!(req.headers['content-type'] ?? '').includes('application/json')) throw new ProviderHttpError(400, 'content-type must be application/json');
  try {
    return JSON.parse(body);
  } catch {
    throw new ProviderHttpError(400, 'the body is not valid JSON');
  }
};
