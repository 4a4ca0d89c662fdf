import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import type { LocalStack } from '../../infra/local/stack.ts';
import { openApiDocument } from '../../functions/openapi.ts';
import { table } from '../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../support/api.ts';
import { mutations } from './mutations.ts';
import { send, type RawRequest, type RawResponse } from './raw-request.ts';
import { SchemaArbitraries, type JsonSchema } from './schema-arbitrary.ts';

interface Operation {
  method: string;
  path: string;
  operationId: string;
  member: boolean;
  idempotent: boolean;
  body?: JsonSchema;
  params: { name: string; in: 'path' | 'query'; schema: JsonSchema; required: boolean }[];
  responses: Record<string, { schema?: JsonSchema; json: boolean }>;
}

export interface FuzzSummary {
  cases: number;
  byStatus: Record<string, number>;
  byMutation: Record<string, number>;
  operations: number;
  accepted: number;
  failures: string[];
}

/** Items that change without a request: the stream's consumers and the rate counters. */
const asynchronous = (pk: string): boolean => pk.startsWith('RATE#') || pk.startsWith('TRACK#') || pk.includes('#DLV') || pk.startsWith('REFUSED#');

// ajv and ajv-formats are CommonJS; require gives their classes without default-export guessing.
const require = createRequire(import.meta.url);
const { Ajv2020 } = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js');
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export const operationsOf = (document: any): Operation[] => {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const params = (op.parameters ?? []).filter((p: any) => !p.$ref).map((p: any) => ({ name: p.name, in: p.in, schema: p.schema ?? {}, required: !!p.required }));
      const refs = (op.parameters ?? []).filter((p: any) => p.$ref).map((p: any) => String(p.$ref));
      const responses: Operation['responses'] = {};
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
        const json = resolved?.content?.['application/json'] ?? resolved?.content?.['application/problem+json'];
        responses[status] = { schema: json?.schema, json: !!json };
      }
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        member: (op.security ?? document.security ?? []).length > 0 && refs.some((r: string) => r.endsWith('/TenantId')),
        idempotent: refs.some((r: string) => r.endsWith('/IdempotencyKey')),
        body: op.requestBody?.content?.['application/json']?.schema,
        params,
        responses,
      });
    }
  }
  return out;
};

/**
 * Sends generated and broken requests for every operation of the OpenAPI document and checks
 * the properties of issue 12: never a 5xx; every 4xx a problem+json with a stable code; a refused
 * request changes nothing in the table; an accepted one matches its documented response schema.
 */
export class Fuzzer {
  private readonly document: any = openApiDocument();
  private readonly operations = operationsOf(this.document);
  private readonly arbitraries = new SchemaArbitraries(this.document.components.schemas);
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
  private readonly validators = new Map<string, (value: unknown) => boolean>();
  /** Ids answered by accepted requests, by the collection path they came from. */
  private readonly ids = new Map<string, Set<string>>();
  private readonly foreign: string[] = [];
  private readonly tokens: string[] = [];
  private snapshot = new Map<string, string>();

  private constructor(
    private readonly stack: LocalStack,
    private readonly tenant: TestTenant,
    private readonly members: TestMember[],
  ) {}

  static async start(stack: LocalStack): Promise<Fuzzer> {
    const tenant = await TestTenant.create(stack);
    const members = [await tenant.member('admin', { mfa: true }), await tenant.member('admin', { mfa: true }), await tenant.member('operator'), await tenant.member('viewer'), await tenant.member('driver')];
    const fuzzer = new Fuzzer(stack, tenant, members);
    // Another tenant's resources: any of its ids must read as 404 here.
    const other = await TestTenant.create(stack, 'Otra Empresa');
    const otherAdmin = await other.member('admin', { mfa: true });
    const vehicle = await other.call(otherAdmin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'ZZ9911', label: 'Ajeno' } });
    if (vehicle.status === 201) fuzzer.foreign.push(vehicle.body.id);
    const order = await other.call(otherAdmin, 'POST', '/v1/distribution/orders', {
      body: { reference: 'X-1', serviceDate: '2026-11-23', recipient: { name: 'Ajeno', phone: '+56911111111', email: 'a@example.cl' }, address: { text: 'Calle 1', latitude: -33.4, longitude: -70.6 } },
    });
    if (order.status === 201) fuzzer.foreign.push(order.body.id);
    fuzzer.snapshot = await fuzzer.scan();
    return fuzzer;
  }

  private async scan(): Promise<Map<string, string>> {
    const items = new Map<string, string>();
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await table().send(new ScanCommand({ TableName: this.stack.tableName, ExclusiveStartKey: startKey, ConsistentRead: true }));
      for (const item of page.Items ?? []) {
        const pk = String(item.pk);
        if (!asynchronous(pk)) items.set(`${pk}\u0000${String(item.sk)}`, JSON.stringify(item));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }

  private validator(schema: JsonSchema): (value: unknown) => boolean {
    const key = JSON.stringify(schema);
    const known = this.validators.get(key);
    if (known) return known;
    const validate = this.ajv.compile({ ...schema, components: this.document.components });
    this.validators.set(key, validate);
    return validate;
  }

  private pathValue(op: Operation, name: string, draw: <T>(a: fc.Arbitrary<T>) => T): string {
    if (name === 'token') return draw(fc.oneof(fc.constantFrom(...(this.tokens.length ? this.tokens : ['nope'])), fc.base64String({ maxLength: 40 })));
    const collection = op.path.slice(0, op.path.indexOf(`{${name}}`) - 1);
    const known = [...(this.ids.get(collection) ?? []), ...(name === 'stopId' ? (this.ids.get('stops') ?? []) : [])];
    return draw(known.length > 0 ? fc.oneof(fc.constantFrom(...known), fc.uuid({ version: 7 })) : fc.uuid({ version: 7 }));
  }

  /** A request the OpenAPI document allows, before any mutation. */
  private build(op: Operation, draw: <T>(a: fc.Arbitrary<T>) => T): { request: RawRequest; body: unknown } {
    let path = op.path;
    const query: string[] = [];
    for (const param of op.params) {
      if (param.in === 'path') path = path.replace(`{${param.name}}`, encodeURIComponent(this.pathValue(op, param.name, draw)));
      else if (param.required || draw(fc.boolean())) {
        const value = draw(this.arbitraries.of(param.schema));
        if (value !== null && value !== undefined) query.push(`${param.name}=${encodeURIComponent(String(value))}`);
      }
    }
    const member = draw(fc.constantFrom(...this.members));
    const headers: Record<string, string | string[]> = {};
    if (op.member) {
      headers.authorization = `Bearer ${member.token}`;
      headers['x-tenant-id'] = this.tenant.id;
      if (op.idempotent) headers['idempotency-key'] = crypto.randomUUID();
    }
    const body = op.body ? draw(this.arbitraries.of(op.body)) : undefined;
    const request: RawRequest = { method: op.method, path: query.length ? `${path}?${query.join('&')}` : path, headers };
    if (body !== undefined) {
      request.body = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    return { request, body };
  }

  private remember(op: Operation, response: RawResponse, body: any): void {
    if (!body || typeof body !== 'object') return;
    const add = (collection: string, id: unknown) => {
      if (typeof id === 'string') (this.ids.get(collection) ?? this.ids.set(collection, new Set()).get(collection)!).add(id);
    };
    if (op.method === 'POST' && response.status === 201) add(op.path, body.id ?? body.endpoint?.id);
    if (typeof body.trackingUrl === 'string') this.tokens.push(body.trackingUrl.split('/').pop());
    for (const stop of Array.isArray(body.stops) ? body.stops : []) add('stops', stop.id);
    if (body.id && op.path.startsWith('/v1/webhooks/') && response.status === 202) add('/v1/webhooks/deliveries', body.id);
  }

  /** One case: an operation, a valid request, perhaps one mutation; returns a failure or null. */
  async run(draw: <T>(a: fc.Arbitrary<T>) => T, summary: FuzzSummary): Promise<void> {
    const op = draw(fc.constantFrom(...this.operations));
    const { request: valid, body } = this.build(op, draw);
    const all = mutations(draw, () => this.foreign);
    const mutation = draw(fc.option(fc.constantFrom(...all), { freq: 2 }));
    const request = mutation ? mutation.apply(valid, body) : valid;
    const kind = mutation?.kind ?? 'none';
    summary.byMutation[kind] = (summary.byMutation[kind] ?? 0) + 1;
    summary.cases++;

    const response = await send(this.stack.baseUrl, request);
    summary.byStatus[response.status] = (summary.byStatus[response.status] ?? 0) + 1;
    const where = `${kind} ${request.method} ${request.path.slice(0, 120)} -> ${response.status}`;
    const fail = (why: string): void => void summary.failures.push(`${where}: ${why} ${response.text.slice(0, 300)} <- ${(request.body ?? '').slice(0, 400)}`);
    let parsed: any;
    try {
      parsed = response.text ? JSON.parse(response.text) : undefined;
    } catch {
      parsed = undefined;
    }

    if (response.status >= 500) return fail('5xx');
    const after = await this.scan();
    if (response.status >= 400) {
      const html = op.operationId === 'getTrackingPage' && String(response.headers['content-type']).startsWith('text/html');
      if (!html) {
        if (response.headers['content-type'] !== 'application/problem+json') return void fail(`content-type ${String(response.headers['content-type'])}`);
        if (!parsed || typeof parsed.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(parsed.code)) return void fail('no stable code');
        if (parsed.status !== response.status) return void fail('status field differs');
        if (typeof parsed.requestId !== 'string') return void fail('no requestId');
      }
      const changed = [...after].filter(([key, value]) => this.snapshot.get(key) !== value).map(([key]) => key);
      const removed = [...this.snapshot.keys()].filter((key) => !after.has(key));
      if (changed.length + removed.length > 0) fail(`refused request changed the table: ${[...changed, ...removed].slice(0, 3).join(', ')}`);
    } else {
      summary.accepted++;
      const declared = op.responses[String(response.status)];
      if (!declared) fail('status not documented');
      else if (declared.schema && declared.json) {
        const validate = this.validator(declared.schema);
        if (!validate(parsed)) fail(`response breaks its schema: ${this.ajv.errorsText((validate as any).errors)}`);
      }
      this.remember(op, response, parsed);
    }
    this.snapshot = after;
  }

  get operationCount(): number {
    return this.operations.length;
  }
}

export const emptySummary = (): FuzzSummary => ({ cases: 0, byStatus: {}, byMutation: {}, operations: 0, accepted: 0, failures: [] });

export const printSummary = (summary: FuzzSummary): void => {
  console.log(
    `fuzz: ${summary.cases} cases over ${summary.operations} operations, ${summary.accepted} accepted, ${summary.failures.length} failures\n` +
      `  by status: ${JSON.stringify(summary.byStatus)}\n  by mutation: ${JSON.stringify(summary.byMutation)}`,
  );
};

export { UUID };
