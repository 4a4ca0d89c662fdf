import type { FakeRelation } from './types.ts';

/** What a route answers; the server decides whether and when to send it (faults). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown; // JSON unless `html` or `raw`
  html?: string;
}

/** The provider's error answer: `{"error": "<message>"}` with its status. */
export class ProviderHttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

export const json = (status: number, body: unknown): Answer => ({ status, body });
export const fail = (status: number, message: string): never => {
  throw new ProviderHttpError(status, message);
};

export const relation = (base: string, kind: string, id: number | string): FakeRelation => ({
  href: `${base}/v1/${kind}/${id}.json`,
  id: String(id),
});

/** The provider's list answer: `limit` default 25, at most 50; `next` only when more remain. */
/**
 * One page of a list. `shape` makes the served form of the page's items only: shaping the whole
 * list on every request made the fake's own cost grow with the catalogue (a 40,000-record import
 * spent a tenth of its time there, charged to our import in bench:imports).
 */
export const page = <T, U = T>(url: URL, base: string, items: readonly T[], shape: (item: T) => U = (item) => item as unknown as U) => {
  const limit = Math.min(intParam(url, 'limit') ?? 25, 50);
  const offset = intParam(url, 'offset') ?? 0;
  if (limit < 1) fail(400, 'limit must be a positive integer');
  const href = new URL(url.pathname + url.search, base);
  const answer: { href: string; count: number; limit: number; offset: number; items: U[]; next?: string } = {
    href: href.toString(),
    count: items.length,
    limit,
    offset,
    items: items.slice(offset, offset + limit).map(shape),
  };
  if (offset + limit < items.length) {
    const next = new URL(href);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('offset', String(offset + limit));
    answer.next = next.toString();
  }
  return answer;
};

export const intParam = (url: URL, name: string): number | undefined => {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) fail(400, `${name} must be a non-negative integer`);
  return Number(raw);
};

/** `[from,to]` as the provider writes ranges in query strings. */
export const rangeParam = (url: URL, name: string): [number, number] | undefined => {
  const raw = url.searchParams.get(name);
  if (raw === null) return undefined;
  const match = /^\[(\d+),(\d+)\]$/.exec(raw.replace(/\s/g, ''));
  if (!match) fail(400, `${name} must be [from,to]`);
  return [Number(match![1]), Number(match![2])];
};

export const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
