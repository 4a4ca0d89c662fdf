import type * as v from 'valibot';
import type { JsonSchema } from '@valibot/to-json-schema';
import { permissions } from '../auth/roles.ts';
import type { AnyOperation, ResponseSpec } from '../http/operation.ts';
import type { SchemaConverter } from './json-schema.ts';
import { chainProblemResponses, problemMediaType, problemResponses } from './problems.ts';

type Json = Record<string, unknown>;

/**
 * ResponseSpec may grow a media type for bodies that are not JSON (the tracking page is HTML);
 * read here without a type so the document honours it as soon as an operation declares it.
 */
type DeclaredResponse = ResponseSpec & { contentType?: unknown };

const ref = (section: string, name: string): Json => ({ $ref: `#/components/${section}/${name}` });

const requestIdHeader = { 'x-request-id': ref('headers', 'RequestId') };

const pathNames = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

const propertiesOf = (json: JsonSchema): [string, JsonSchema, boolean][] => {
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(json.required ?? []);
  return Object.entries(properties).map(([name, schema]) => [name, schema, required.has(name)]);
};

/** Each property of the params/query object is one parameter; its description moves up to where tools show it. */
const parameter = (name: string, place: 'path' | 'query', schema: JsonSchema, required: boolean): Json => {
  const { description, ...rest } = schema;
  return { name, in: place, required, ...(description ? { description } : {}), schema: rest };
};

const parametersOf = (operation: AnyOperation, schemas: SchemaConverter): Json[] => {
  const where = operation.operationId;
  const params = operation.params ? propertiesOf(schemas.convert(operation.params as v.GenericSchema, 'parameter', `${where} params`)) : [];
  const declared = new Set(params.map(([name]) => name));
  // A path parameter without a schema still has to be described for the path to be valid.
  const undeclared = pathNames(operation.path).filter((name) => !declared.has(name));
  const query = operation.query ? propertiesOf(schemas.convert(operation.query as v.GenericSchema, 'parameter', `${where} query`)) : [];
  return [
    ...params.map(([name, schema]) => parameter(name, 'path', schema, true)),
    ...undeclared.map((name) => parameter(name, 'path', { type: 'string' }, true)),
    ...query.map(([name, schema, required]) => parameter(name, 'query', schema, required)),
    ...(operation.access === 'member' ? [ref('parameters', 'TenantId')] : []),
    ...(operation.access === 'member' && operation.idempotent ? [ref('parameters', 'IdempotencyKey')] : []),
  ];
};

const problemContent = (schemas: SchemaConverter): Json => ({ [problemMediaType]: { schema: schemas.reference('Problem', 'response') } });

const declaredResponse = (operation: AnyOperation, status: number, spec: DeclaredResponse, schemas: SchemaConverter): Json => {
  const contentType = typeof spec.contentType === 'string' ? spec.contentType : undefined;
  const success = status >= 200 && status < 300;
  const standard = problemResponses[status];
  const headers: Json = {
    ...requestIdHeader,
    ...(success && operation.access === 'member' && operation.idempotent ? { 'idempotent-replayed': ref('headers', 'IdempotentReplayed') } : {}),
    ...(!success && !contentType && !spec.schema ? (standard?.headers ?? {}) : {}),
  };
  let content: Json | undefined;
  if (spec.schema) {
    content = { [contentType ?? 'application/json']: { schema: schemas.convert(spec.schema, 'response', `${operation.operationId} ${status}`) } };
  } else if (contentType) {
    content = { [contentType]: { schema: contentType.startsWith('text/') ? { type: 'string' } : {} } };
  } else if (status >= 400) {
    // An error without a body of its own is the problem document every error path writes.
    content = problemContent(schemas);
  }
  return { description: spec.description, headers, ...(content ? { content } : {}) };
};

const descriptionOf = (operation: AnyOperation): string => {
  if (operation.access === 'public') return 'Public: no session and no headers are needed.';
  const roles = (permissions as Record<string, readonly string[] | undefined>)[operation.permission] ?? [];
  const lines = [`Permission \`${operation.permission}\`${roles.length > 0 ? `, held by the roles ${roles.join(', ')}` : ''}.`];
  if (operation.idempotent) lines.push('Idempotent: send a new UUID in `idempotency-key` for each change.');
  if (operation.requiresMfa) {
    lines.push(
      'Requires two-step verification: the access token’s `amr` claim must hold `mfa`, `otp`, `hwk`, `swk` or `sms`, unless the issuer enforces it for everyone. Otherwise 403 `mfa_required`.',
    );
  }
  return lines.join('\n\n');
};

/** The OpenAPI Operation Object of one operation. */
export const operationObject = (operation: AnyOperation, schemas: SchemaConverter): Json => {
  const responses: Record<string, Json> = {};
  const declared = Object.entries(operation.responses).map(([status, spec]) => [Number(status), spec as DeclaredResponse] as const);
  for (const [status, spec] of declared) responses[status] = declaredResponse(operation, status, spec, schemas);
  for (const [status, standard] of Object.entries(chainProblemResponses(operation.access))) {
    if (!(status in responses)) responses[status] = ref('responses', standard.name);
  }
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));

  const parameters = parametersOf(operation, schemas);
  const body = operation.body as v.GenericSchema | undefined;
  return {
    tags: [operation.tag],
    summary: operation.summary,
    description: descriptionOf(operation),
    operationId: operation.operationId,
    ...(operation.access === 'member' ? { 'x-permission': operation.permission } : {}),
    ...(operation.access === 'member' && operation.requiresMfa ? { 'x-requires-mfa': true } : {}),
    security: operation.access === 'member' ? [{ bearerAuth: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemas.convert(body, 'request', `${operation.operationId} body`) } } } }
      : {}),
    responses: sorted,
  };
};
