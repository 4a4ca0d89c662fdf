import { randomUUID } from 'node:crypto';

export interface Caller {
  token: string;
  tenantId: string;
}

/** An idempotent request as the client sent it, and the answer it finally got. */
export interface KeyedRequest {
  caller: Caller;
  method: string;
  path: string;
  body: unknown;
  key: string;
  status: number;
  answer: unknown;
  /** The request was sent again after a kill cut it (or a 5xx answered it). */
  retried: boolean;
}

export interface Answer {
  status: number;
  body: any;
  /** Sent more than once: a 409 may then be this request's own earlier attempt having applied. */
  retried: boolean;
}

export interface ClientCounts {
  requests: number;
  retried: number;
  serverErrors: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The workload's HTTP client. A request the kill cuts (no answer) is sent again, with the same
 * idempotency key, until the restarted stack answers, as a client of the cloud API would retry a
 * dropped connection. Every idempotent request is kept to be replayed at the end.
 */
export class ChaosClient {
  readonly keyed: KeyedRequest[] = [];
  readonly counts: ClientCounts = { requests: 0, retried: 0, serverErrors: 0 };

  constructor(
    private readonly baseUrl: () => string,
    private readonly deadline: () => number,
  ) {}

  async send(caller: Caller, method: string, path: string, body?: unknown, options: { keyed?: boolean } = {}): Promise<Answer> {
    const key = options.keyed ? randomUUID() : undefined;
    this.counts.requests++;
    let retried = false;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > this.deadline()) throw new Error(`${method} ${path}: no answer before the run's deadline`);
      let status: number;
      let text: string;
      try {
        const response = await fetch(`${this.baseUrl()}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${caller.token}`,
            'x-tenant-id': caller.tenantId,
            ...(key ? { 'idempotency-key': key } : {}),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        text = await response.text();
      } catch {
        // No answer: the stack died under the request (or is not back yet). Same key, again.
        if (!retried) this.counts.retried++;
        retried = true;
        await sleep(Math.min(1_000, 100 * (attempt + 1)));
        continue;
      }
      if (status === 429) {
        await sleep(1_000);
        continue;
      }
      if (status >= 500) {
        this.counts.serverErrors++;
        if (!retried) this.counts.retried++;
        retried = true;
        await sleep(500);
        continue;
      }
      const parsed = text ? JSON.parse(text) : undefined;
      if (key && status < 300) this.keyed.push({ caller, method, path, body, key, status, answer: parsed, retried });
      return { status, body: parsed, retried };
    }
  }

  /**
   * Sends a kept request once more with its key: the answer must be the one the client got. A
   * request that gets no answer (a pooled connection the stack closed meanwhile: "fetch failed")
   * is sent again with the same key, as send() does; only an answer counts.
   */
  async replay(request: KeyedRequest): Promise<{ status: number; body: unknown; replayed: boolean }> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${this.baseUrl()}${request.path}`, {
          method: request.method,
          headers: {
            authorization: `Bearer ${request.caller.token}`,
            'x-tenant-id': request.caller.tenantId,
            'idempotency-key': request.key,
            ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        if (Date.now() > this.deadline() || attempt >= 20) throw error;
        await sleep(Math.min(1_000, 100 * (attempt + 1)));
        continue;
      }
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, replayed: response.headers.get('idempotent-replayed') === 'true' };
    }
  }
}
