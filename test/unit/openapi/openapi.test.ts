import { existsSync, readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allOperations } from '../../../functions/index.ts';
import { handler as metaHandler } from '../../../functions/meta/handler.ts';
import { BadRequestError, IdempotencyInProgressError, RateLimitedError, ValidationError, VersionMismatchError } from '../../../shared/errors.ts';
import { defineOperation, definePublicOperation, routeKey, type AnyOperation } from '../../../shared/http/operation.ts';
import { problemResult } from '../../../shared/http/problem.ts';
import { buildDocument } from '../../../shared/openapi/document.ts';
import { openApiDocument } from '../../../functions/openapi.ts';
import { Problem } from '../../../shared/openapi/problems.ts';

type Json = Record<string, any>;

const document = openApiDocument() as Json;

/** Follows local `$ref`s, as a client generator would. */
const resolve = (doc: Json, node: Json): Json => {
  let current = node;
  while (typeof current?.$ref === 'string') {
    current = (current.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((at: Json, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  }
  return current;
};

const operationAt = (doc: Json, method: string, path: string): Json => doc.paths[path][method.toLowerCase()];

const parametersOf = (doc: Json, operation: Json): Json[] => (operation.parameters ?? []).map((p: Json) => resolve(doc, p));

const parameterNamed = (doc: Json, operation: Json, name: string): Json | undefined =>
  parametersOf(doc, operation).find((p) => p.name === name);

const validateDocument = async (doc: object) => {
  // The parser dereferences in place; the memoised document is frozen and shared.
  const result = await validate(structuredClone(doc) as never, { validate: { errors: { colorize: false } } });
  return { valid: result.valid, report: result.valid ? '' : compileErrors(result) };
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const { valid, report } = await validateDocument(document);
    expect(report).toBe('');
    expect(valid).toBe(true);
  });

  it('would be caught by the validator if it were broken', async () => {
    const broken = structuredClone(document);
    broken.paths['/v1/fleet/vehicles/{id}'].get.parameters = [];
    expect((await validateDocument(broken)).valid).toBe(false);
  });

  it('is OpenAPI 3.1 at interface version 0.4.0', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info).toMatchObject({ title: 'Delivery Operations API', version: '0.4.0' });
    expect(typeof document.jsonSchemaDialect).toBe('string');
  });

  it('describes exactly the routes that are served', () => {
    const served = allOperations().map(routeKey);
    expect(new Set(served).size).toBe(served.length);
    const described = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(new Set(described).size).toBe(described.length);
    expect([...described].sort()).toEqual([...served].sort());
  });

  it('uses the operationId and tag of each definition', () => {
    for (const operation of allOperations()) {
      const described = operationAt(document, operation.method, operation.path);
      expect(described.operationId).toBe(operation.operationId);
      expect(described.tags).toEqual([operation.tag]);
    }
    expect(document.tags.map((tag: Json) => tag.name)).toEqual([...new Set(allOperations().map((o) => o.tag))]);
  });

  it('describes every tag, and an undescribed tag does not compile', () => {
    for (const tag of document.tags) expect(tag.description, tag.name).toMatch(/\w{3}/);
    const withUndescribedTag = definePublicOperation({
      operationId: 'getUndescribed',
      method: 'GET',
      path: '/v1/undescribed',
      summary: 'An operation of an area shared/openapi/tags.ts does not know',
      // @ts-expect-error: `npm test` runs tsc, which fails if this ever compiles.
      tag: 'Undescribed',
      responses: { 200: { description: 'Something' } },
      handle: async () => ({ status: 200 }),
    });
    expect(withUndescribedTag.tag).toBe('Undescribed');
  });

  it('expresses every schema the operations use', () => {
    expect(buildDocument(allOperations()).gaps).toEqual([]);
  });

  it('is built once and cannot be changed by a caller', () => {
    expect(openApiDocument()).toBe(document);
    expect(Object.isFrozen(document.paths)).toBe(true);
  });

  describe('POST /v1/fleet/vehicles', () => {
    const operation = operationAt(document, 'POST', '/v1/fleet/vehicles');

    it('requires the bearer token, x-tenant-id and idempotency-key', () => {
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      expect(parameterNamed(document, operation, 'x-tenant-id')).toMatchObject({ in: 'header', required: true, schema: { format: 'uuid' } });
      expect(parameterNamed(document, operation, 'idempotency-key')).toMatchObject({ in: 'header', required: true, schema: { format: 'uuid' } });
      expect(operation['x-permission']).toBe('fleet.write');
    });

    it('takes a required JSON body that names its fields', () => {
      expect(operation.requestBody.required).toBe(true);
      const body = resolve(document, operation.requestBody.content['application/json'].schema);
      expect(body.required).toEqual(expect.arrayContaining(['plate', 'label']));
      expect(body.additionalProperties).toBe(false);
      // The plate is normalised before its pattern applies, so the client may send "bb-cc 12".
      expect(body.properties.plate).toEqual({ type: 'string', description: expect.stringContaining('spaces, dots, hyphens and case are ignored') });
    });

    it('answers 201 with the Vehicle, including its version', () => {
      const schema = operation.responses['201'].content['application/json'].schema;
      expect(schema).toEqual({ $ref: '#/components/schemas/Vehicle' });
      const vehicle = resolve(document, schema);
      expect(vehicle.properties.version).toEqual({ type: 'integer', minimum: 1 });
      expect(vehicle.required).toContain('version');
      expect(vehicle.properties.id).toEqual({ type: 'string', format: 'uuid' });
      expect(operation.responses['201'].headers['idempotent-replayed']).toBeDefined();
    });
  });

  it('documents limit on GET /v1/fleet/vehicles as the integer it is parsed to', () => {
    const operation = operationAt(document, 'GET', '/v1/fleet/vehicles');
    expect(parameterNamed(document, operation, 'limit')).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    });
    expect(parameterNamed(document, operation, 'after')).toMatchObject({ in: 'query', required: false, schema: { type: 'string', format: 'uuid' } });
    expect(parameterNamed(document, operation, 'idempotency-key')).toBeUndefined();
    const page = resolve(document, operation.responses['200'].content['application/json'].schema);
    expect(page.properties.items.items).toEqual({ $ref: '#/components/schemas/Vehicle' });
  });

  it('documents path parameters from the params schema', () => {
    const operation = operationAt(document, 'GET', '/v1/fleet/vehicles/{id}');
    expect(parameterNamed(document, operation, 'id')).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
  });

  it('serves GET /v1/openapi.json without any session or header', () => {
    const operation = operationAt(document, 'GET', '/v1/openapi.json');
    expect(operation.security).toEqual([]);
    expect(parametersOf(document, operation)).toEqual([]);
    // No token is read, so no 401; a 403 can only be the origin check.
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '403', '413', '415', '429', '503']);
    expect(operation.responses['403']).toEqual({ $ref: '#/components/responses/OriginNotVerified' });
    expect(resolve(document, operation.responses['403']).description).toContain('origin_not_verified');
  });

  it('lists the 4xx the chain really gives a public operation', async () => {
    const operation = operationAt(document, 'GET', '/v1/openapi.json');
    const sent = async (body: string, contentType: string) => {
      const event = {
        version: '2.0',
        routeKey: 'GET /v1/openapi.json',
        rawPath: '/v1/openapi.json',
        rawQueryString: '',
        headers: { 'content-type': contentType },
        requestContext: { requestId: `lint-${contentType}-${body.length}`, http: { method: 'GET', path: '/v1/openapi.json', sourceIp: '127.0.0.1' } },
        body,
        isBase64Encoded: false,
      };
      const result = await metaHandler(event as never, {} as never);
      return { status: result.statusCode, code: JSON.parse(result.body as string).code };
    };
    const answers = [
      await sent('{"not":"taken"}', 'application/json'),
      await sent('{"not":', 'application/json'),
      await sent('plain', 'text/plain'),
      await sent(`"${'x'.repeat(300 * 1024)}"`, 'application/json'),
    ];
    expect(answers).toEqual([
      { status: 400, code: 'unexpected_body' },
      { status: 400, code: 'malformed_json' },
      { status: 415, code: 'unsupported_media_type' },
      { status: 413, code: 'payload_too_large' },
    ]);
    for (const { status, code } of answers) expect(Object.keys(operation.responses), code).toContain(String(status));
  });

  it('lists every status an authenticated operation can give, as problem+json', () => {
    const statuses = ['400', '401', '403', '404', '409', '410', '413', '415', '422', '429', '503'];
    for (const operation of allOperations().filter((o) => o.access === 'member')) {
      const described = operationAt(document, operation.method, operation.path);
      for (const status of statuses) {
        const response = resolve(document, described.responses[status]);
        expect(response.content['application/problem+json'].schema, `${operation.operationId} ${status}`).toEqual({ $ref: '#/components/schemas/Problem' });
      }
    }
    const responses = document.components.responses;
    expect(responses.TooManyRequests.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(responses.ServiceUnavailable.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(responses.Conflict.description).toContain('currentVersion');
    expect(responses.Unauthorized.headers['WWW-Authenticate']).toBeDefined();
  });

  it('declares the bearer scheme', () => {
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  describe('the Problem schema', () => {
    const problem = document.components.schemas.Problem;

    it('has the fields a client relies on', () => {
      expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'requestId']));
      expect(problem.properties.errors.items.required).toEqual(['path', 'message']);
      expect(problem.properties.currentVersion.type).toBe('integer');
    });

    it('matches the bodies the error path writes', () => {
      const errors = [
        new ValidationError([{ path: 'body.plate', message: 'must be a string' }]),
        new BadRequestError('No body here.', 'unexpected_body'),
        new VersionMismatchError(4, 3),
        new IdempotencyInProgressError(),
        new RateLimitedError(7),
        new Error('boom'),
      ];
      for (const error of errors) {
        const body = JSON.parse(problemResult(error, 'req-1').body as string);
        expect(v.safeParse(Problem, body).success, body.code).toBe(true);
        for (const key of Object.keys(body)) expect(Object.keys(problem.properties), `${body.code}.${key}`).toContain(key);
      }
    });
  });

  it('matches docs/openapi.json when that file is present (run `npm run openapi`)', () => {
    const file = new URL('../../../docs/openapi.json', import.meta.url);
    if (!existsSync(file)) return;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(document)));
  });
});

describe('building from other operations', () => {
  const htmlPage = { description: 'The tracking page', contentType: 'text/html' };
  const trackingPage = definePublicOperation({
    operationId: 'getTrackingPage',
    method: 'GET',
    path: '/t/{token}',
    summary: 'Tracking page',
    tag: 'Public tracking',
    responses: { 200: htmlPage, 404: { ...htmlPage, description: 'No such link' }, 429: { description: 'Too many requests' } },
    handle: async () => ({ status: 200, body: '<!doctype html>' }),
  });

  // A client sends the size as text; the handler answers with the number it became.
  const Thing = v.pipe(v.object({ name: v.pipe(v.string(), v.trim()), size: v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(1)) }), v.title('Thing'));
  const putThing = defineOperation({
    operationId: 'putThing',
    method: 'PUT',
    path: '/v1/things/{id}',
    summary: 'Put a thing',
    tag: 'Fleet',
    permission: 'fleet.write',
    requiresMfa: true,
    params: v.strictObject({ id: v.pipe(v.string(), v.uuid()) }),
    query: v.strictObject({ ratio: v.optional(v.pipe(v.string(), v.transform(Number), v.minValue(0)), '0.5') }),
    body: Thing,
    responses: { 200: { description: 'The thing', schema: Thing }, 409: { description: 'The thing is locked' } },
    handle: async () => ({ status: 200 }),
  });

  const build = buildDocument([trackingPage, putThing] as AnyOperation[]);
  const doc = build.document as Json;
  const gaps = build.gaps;

  it('is valid', async () => {
    const { valid, report } = await validateDocument(doc);
    expect(report).toBe('');
    expect(valid).toBe(true);
    expect(gaps).toEqual([]);
  });

  it('honours the declared responses of a public operation, including their media type', () => {
    const page = operationAt(doc, 'GET', '/t/{token}');
    expect(page.security).toEqual([]);
    // The declared statuses keep their own description and media type; the chain's own are added.
    expect(Object.keys(page.responses)).toEqual(['200', '400', '403', '404', '413', '415', '429', '503']);
    expect(page.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(page.responses['401']).toBeUndefined();
    expect(page.responses['200'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(page.responses['404'].content).toEqual({ 'text/html': { schema: { type: 'string' } } });
    expect(page.responses['429'].content['application/problem+json']).toBeDefined();
    expect(page.responses['429'].headers['Retry-After']).toBeDefined();
    // A path parameter without a params schema is still described, or the path would be invalid.
    expect(parameterNamed(doc, page, 'token')).toEqual({ name: 'token', in: 'path', required: true, schema: { type: 'string' } });
  });

  it('keeps an operation’s own description of a standard status', () => {
    const put = operationAt(doc, 'PUT', '/v1/things/{id}');
    expect(put.responses['409'].description).toBe('The thing is locked');
    expect(put.responses['409'].content['application/problem+json']).toBeDefined();
    expect(put.responses['410']).toEqual({ $ref: '#/components/responses/Gone' });
  });

  it('notes two-step verification', () => {
    const put = operationAt(doc, 'PUT', '/v1/things/{id}');
    expect(put.description).toContain('two-step verification');
    expect(put['x-requires-mfa']).toBe(true);
  });

  it('documents a numeric query value by what it parses to', () => {
    const put = operationAt(doc, 'PUT', '/v1/things/{id}');
    expect(parameterNamed(doc, put, 'ratio')!.schema).toEqual({ type: 'number', minimum: 0, default: 0.5 });
  });

  it('gives a named schema a separate input component when its transforms change the shape', () => {
    const put = operationAt(doc, 'PUT', '/v1/things/{id}');
    expect(put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ThingInput' });
    expect(put.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['Problem', 'Thing', 'ThingInput']);
  });
});
