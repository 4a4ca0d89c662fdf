import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allOperations } from '../../../functions/index.ts';
import { eventDataSchemas } from '../../../shared/events/catalogue.ts';
import { DateTime, IsoDate } from '../../../shared/http/schemas.ts';

const dateActions = new Set(['iso_date', 'iso_timestamp', 'iso_date_time']);

type Node = v.GenericSchema & { pipe?: readonly { type: string; kind: string }[]; entries?: Record<string, Node>; wrapped?: Node; item?: Node; items?: Node[]; options?: Node[]; value?: Node };

/** Every schema in the tree that checks an ISO date or date-time pattern, with where it is. */
const dateSchemas = (schema: Node | undefined, at: string, found: [string, Node][] = []): [string, Node][] => {
  if (!schema || typeof schema !== 'object') return found;
  if (schema.pipe?.some((action) => dateActions.has(action.type))) found.push([at, schema]);
  for (const inner of (schema.pipe ?? []).slice(1)) if (inner.kind === 'schema') dateSchemas(inner as unknown as Node, at, found);
  for (const [name, inner] of Object.entries(schema.entries ?? {})) dateSchemas(inner, `${at}.${name}`, found);
  dateSchemas(schema.wrapped, at, found);
  dateSchemas(schema.item, `${at}[]`, found);
  dateSchemas(schema.value, `${at}{}`, found);
  for (const inner of [...(schema.items ?? []), ...(schema.options ?? [])]) dateSchemas(inner, at, found);
  return found;
};

const everyDateSchema = (): [string, Node][] => [
  ...allOperations().flatMap((operation) => [
    ...dateSchemas(operation.params, `${operation.operationId} path`),
    ...dateSchemas(operation.query, `${operation.operationId} query`),
    ...dateSchemas(operation.body, `${operation.operationId} body`),
    ...Object.entries(operation.responses).flatMap(([status, response]) => dateSchemas(response.schema, `${operation.operationId} ${status}`)),
  ]),
  ...Object.entries(eventDataSchemas).flatMap(([type, schema]) => dateSchemas(schema as unknown as Node, type)),
];

describe('dates that do not exist', () => {
  it('refuses 31 February, 31 April and 29 February outside leap years; takes real days', () => {
    for (const day of ['2026-02-31', '2026-02-30', '2026-02-29', '2100-02-29', '2026-04-31', '2026-06-31', '2026-09-31', '2026-11-31']) {
      expect(v.is(IsoDate, day), day).toBe(false);
      expect(v.is(DateTime, `${day}T10:00:00Z`), day).toBe(false);
      expect(v.is(DateTime, `${day}T23:30:00.123-04:00`), day).toBe(false);
    }
    for (const day of ['2024-02-29', '2000-02-29', '2026-02-28', '2026-01-31', '2026-04-30', '2026-12-31']) {
      expect(v.is(IsoDate, day), day).toBe(true);
      expect(v.is(DateTime, `${day}T10:00:00Z`), day).toBe(true);
      expect(v.is(DateTime, `${day}T23:30:00.123-04:00`), day).toBe(true);
    }
  });

  it('says which rule failed', () => {
    const result = v.safeParse(IsoDate, '2026-02-31');
    expect(result.issues?.map((issue) => issue.message)).toEqual(['must be a date that exists in the calendar']);
  });

  it('is refused by every date and date-time an operation or an event takes or gives', () => {
    const found = everyDateSchema();
    // The walk must reach the known dates, or it would pass by finding none.
    const places = found.map(([at]) => at);
    expect(places).toEqual(expect.arrayContaining(['createOrder body.serviceDate', 'createRoutePlan body.serviceDate', 'assignRoute body.serviceDate', 'recordRoutePosition body.recordedAt']));
    for (const [at, schema] of found) {
      const kind = schema.pipe!.find((action) => dateActions.has(action.type))!.type;
      const time = { iso_date: '', iso_date_time: 'T10:00', iso_timestamp: 'T10:00:00Z' }[kind];
      const [impossible, real] = [`2026-02-31${time}`, `2026-02-28${time}`];
      expect(v.is(schema, impossible), at).toBe(false);
      expect(v.is(schema, real), at).toBe(true);
    }
  });
});
