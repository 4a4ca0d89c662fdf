import fc from 'fast-check';
import type { RawRequest } from './raw-request.ts';

/** One way of breaking a request; `kind` is counted in the summary. */
export interface Mutation {
  kind: string;
  apply(request: RawRequest, body: unknown): RawRequest;
}

const withBody = (request: RawRequest, body: unknown): RawRequest => ({
  ...request,
  body: JSON.stringify(body),
  headers: { ...request.headers, 'content-type': 'application/json' },
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const paths = (value: unknown, prefix: string[] = []): string[][] => {
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => [[...prefix, key], ...paths(inner, [...prefix, key])]);
};

const setAt = (value: unknown, path: string[], next: unknown): unknown => {
  if (path.length === 0) return next;
  const copy = isObject(value) ? { ...value } : {};
  const [head, ...rest] = path;
  if (next === undefined && rest.length === 0) delete copy[head!];
  else copy[head!] = setAt(copy[head!], rest, next);
  return copy;
};

const hugeStrings = ['x'.repeat(300_000), '𝕬'.repeat(20_000), '\u202e\u0000\ud800ñ'.repeat(1000), '\u0000', ' ', '<script>alert(1)</script>'];
const edgeNumbers = [0, -1, -0, 1e308, -1e308, 2 ** 53 + 1, 0.1 + 0.2, 1e-320, 2_147_483_648, 999_999_999_999];
const badUuids = ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '../../etc/passwd', '%00', 'ffffffff-ffff-ffff-ffff-fffffffffffff', ' ', "'; DROP TABLE x; --"];
const badDates = ['2026-02-31', '2026-13-01', '2026-00-10', '20261123', '2026-11-23T25:00:00Z', '2026-02-30T10:00:00.000Z', 'yesterday', ''];
const otherTypes: unknown[] = [null, true, 42, 'text', [], {}, [1, 2], { nested: { deep: true } }];

/** Every way the fuzzer breaks a request, chosen at random per case with what fast-check draws. */
export const mutations = (draw: <T>(arb: fc.Arbitrary<T>) => T, foreignIds: () => string[]): Mutation[] => [
  {
    kind: 'wrong_type',
    apply: (req, body) => {
      const targets = paths(body);
      if (targets.length === 0) return withBody(req, draw(fc.constantFrom(...otherTypes)));
      return withBody(req, setAt(body, draw(fc.constantFrom(...targets)), draw(fc.constantFrom(...otherTypes))));
    },
  },
  {
    kind: 'missing_field',
    apply: (req, body) => {
      const targets = paths(body);
      return targets.length === 0 ? withBody(req, {}) : withBody(req, setAt(body, draw(fc.constantFrom(...targets)), undefined));
    },
  },
  { kind: 'extra_field', apply: (req, body) => withBody(req, { ...(isObject(body) ? body : {}), ['__proto__x' + draw(fc.nat(9))]: 1, constructor: { prototype: { polluted: true } } }) },
  {
    kind: 'huge_or_odd_string',
    apply: (req, body) => {
      const targets = paths(body);
      const value = draw(fc.constantFrom(...hugeStrings));
      return targets.length === 0 ? withBody(req, { text: value }) : withBody(req, setAt(body, draw(fc.constantFrom(...targets)), value));
    },
  },
  {
    kind: 'edge_number',
    apply: (req, body) => {
      const targets = paths(body);
      const value = draw(fc.constantFrom(...edgeNumbers));
      return targets.length === 0 ? withBody(req, { version: value }) : withBody(req, setAt(body, draw(fc.constantFrom(...targets)), value));
    },
  },
  { kind: 'deep_nesting', apply: (req) => ({ ...req, body: '['.repeat(20_000) + ']'.repeat(20_000), headers: { ...req.headers, 'content-type': 'application/json' } }) },
  {
    kind: 'duplicate_keys',
    apply: (req, body) => {
      const text = JSON.stringify(isObject(body) ? body : { a: 1 });
      const first = Object.keys(isObject(body) ? body : { a: 1 })[0] ?? 'a';
      return { ...req, body: text.replace(/^\{/, `{${JSON.stringify(first)}:{"dup":true},`), headers: { ...req.headers, 'content-type': 'application/json' } };
    },
  },
  { kind: 'broken_json', apply: (req, body) => ({ ...req, body: JSON.stringify(body ?? {}).slice(0, -1) + ',', headers: { ...req.headers, 'content-type': 'application/json' } }) },
  {
    kind: 'wrong_content_type',
    apply: (req, body) => ({ ...req, body: JSON.stringify(body ?? {}), headers: { ...req.headers, 'content-type': draw(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/jsonx')) } }),
  },
  {
    kind: 'bad_path_id',
    apply: (req) => ({ ...req, path: req.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, encodeURIComponent(draw(fc.constantFrom(...badUuids)))) }),
  },
  {
    kind: 'bad_date',
    apply: (req, body) => {
      const targets = paths(body).filter((p) => /date|At$|from|to/i.test(p[p.length - 1]!));
      const value = draw(fc.constantFrom(...badDates));
      return targets.length === 0 ? withBody(req, { ...(isObject(body) ? body : {}), serviceDate: value }) : withBody(req, setAt(body, draw(fc.constantFrom(...targets)), value));
    },
  },
  {
    kind: 'bad_query',
    apply: (req) => {
      const sep = req.path.includes('?') ? '&' : '?';
      return { ...req, path: `${req.path}${sep}${draw(fc.constantFrom('limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'limit=1e2', 'after=zzz', 'before=%00', 'state=exploded', 'limit=1&limit=2', 'x=1'))}` };
    },
  },
  {
    kind: 'broken_header',
    apply: (req) => {
      const headers = { ...req.headers };
      const which = draw(fc.nat(5));
      if (which === 0) headers['x-tenant-id'] = [String(headers['x-tenant-id']), String(headers['x-tenant-id'])];
      else if (which === 1) headers.authorization = draw(fc.constantFrom('Bearer', 'Basic dXNlcjpwYXNz', 'Bearer a.b.c', `${String(headers.authorization)}x`, 'bearer  '));
      else if (which === 2) headers['x-tenant-id'] = draw(fc.constantFrom(...badUuids.filter((u) => !/[\u0000]/.test(u))));
      else if (which === 3) headers['idempotency-key'] = draw(fc.constantFrom('not-a-uuid', ' ', 'a'.repeat(300)));
      else if (which === 4) headers['idempotency-key'] = [crypto.randomUUID(), crypto.randomUUID()];
      else delete headers.authorization;
      return { ...req, headers };
    },
  },
  {
    kind: 'foreign_id',
    apply: (req) => {
      const ids = foreignIds();
      if (ids.length === 0) return req;
      return { ...req, path: req.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, draw(fc.constantFrom(...ids))) };
    },
  },
];
