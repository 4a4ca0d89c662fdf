import { isIP } from 'node:net';
import { config } from '../../../shared/config.ts';
import { errorCode, describeError } from './classify-error.ts';
import {
  checkDestinationUrl,
  checkLocalDestinationUrl,
  checkResolvedAddress,
  isLoopbackAddress,
  type RuleOptions,
} from './destination-rules.ts';
import { exchange, type Deadline } from './http-exchange.ts';
import type { AttemptOutcome } from './outcomes.ts';
import { systemResolver, type Resolver } from './resolver.ts';

export interface AttemptRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowPrivate: boolean;
  resolver?: Resolver;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  durationMs: number;
  startedAt: string;
  retryAfterSeconds: number | null;
  responseExcerpt: string | null;
  detail: string | null;
}

export const MAX_RESPONSE_BYTES = 64 * 1024;

type AttemptCore = Omit<AttemptResult, 'durationMs' | 'startedAt'>;

/** One delivery attempt. Never throws: every failure is an outcome for the attempt log. */
export async function sendAttempt(request: AttemptRequest): Promise<AttemptResult> {
  const startedAt = new Date().toISOString();
  const started = performance.now();
  // The receiver's whole budget, DNS to last body byte (spec: answer 2xx within 10 seconds).
  const deadline = startDeadline(request.timeoutMs ?? config.webhookAttemptTimeoutMs);
  let result: AttemptCore;
  try {
    result = await attempt(request, deadline);
  } catch (error) {
    result = failed('network_error', `unexpected failure: ${describeError(error)}`);
  } finally {
    deadline.clear();
  }
  return { ...result, durationMs: Math.round(performance.now() - started), startedAt };
}

async function attempt(request: AttemptRequest, deadline: Deadline & { clear(): void }): Promise<AttemptCore> {
  const rules: RuleOptions = { allowPrivate: request.allowPrivate };
  let check = checkDestinationUrl(request.url, rules);
  let loopbackOnly = false;
  if (!check.ok && request.allowPrivate) {
    // Local stack: a named receiver on http or another port is fine if it resolves only to loopback.
    const local = checkLocalDestinationUrl(request.url);
    if (local.ok) [check, loopbackOnly] = [local, true];
  }
  if (!check.ok) return failed('destination_blocked', check.reason);
  const url = check.url;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');

  let addresses: string[];
  if (isIP(hostname) !== 0) {
    addresses = [hostname];
  } else {
    try {
      addresses = await beforeDeadline((request.resolver ?? systemResolver).resolve(hostname), deadline);
    } catch (error) {
      if (deadline.expired) return failed('timeout', `DNS lookup for ${hostname} took over ${deadline.timeoutMs} ms`);
      return failed('dns_failure', `DNS lookup for ${hostname} failed: ${errorCode(error) ?? describeError(error)}`);
    }
    if (!Array.isArray(addresses) || addresses.length === 0) {
      return failed('dns_failure', `DNS lookup for ${hostname} returned no addresses`);
    }
  }

  // Every address, not just the first: the socket may end up on any of them.
  for (const address of addresses) {
    const verdict = checkResolvedAddress(address, rules);
    if (!verdict.ok) return failed('destination_blocked', `${hostname} resolves to a refused address: ${verdict.reason}`);
    if (loopbackOnly && !isLoopbackAddress(address)) {
      return failed('destination_blocked', `${hostname} must use https on port 443 (${address} is not loopback)`);
    }
  }

  return exchange({
    url,
    hostname,
    addresses,
    body: request.body,
    headers: request.headers,
    maxResponseBytes: request.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    deadline,
  });
}

function failed(outcome: AttemptOutcome, detail: string): AttemptCore {
  return { outcome, statusCode: null, retryAfterSeconds: null, responseExcerpt: null, detail };
}

function startDeadline(timeoutMs: number): Deadline & { clear(): void } {
  let expired = false;
  let callback: (() => void) | null = null;
  const timer = setTimeout(() => {
    expired = true;
    callback?.();
  }, timeoutMs);
  return {
    get expired() {
      return expired;
    },
    timeoutMs,
    onExpire(next) {
      callback = next;
      // A late registration (time ran out between steps) still fires.
      if (expired) next();
    },
    clear: () => clearTimeout(timer),
  };
}

function beforeDeadline<T>(promise: Promise<T>, deadline: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    deadline.onExpire(() => reject(new Error('deadline passed')));
    promise.then(resolve, reject);
  });
}
