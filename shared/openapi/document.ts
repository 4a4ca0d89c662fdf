import type * as v from 'valibot';
import type { AnyOperation } from '../http/operation.ts';
import { responseHeaders, securitySchemes, sharedParameters } from './components.ts';
import { SchemaConverter } from './json-schema.ts';
import { namedSchemas } from './named-schemas.ts';
import { operationObject } from './operation-object.ts';
import { Problem, problemMediaType, standardProblemResponses } from './problems.ts';
import { tagDescriptions, type TagName } from './tags.ts';
import { eventDataComponents, webhookNotifications } from './webhooks.ts';

type Json = Record<string, unknown>;

/**
 * Where the paths are served. The local stack first, since it answers as soon as `npm start`
 * runs; a deployed stack is reached at its CloudFront address (the stack output `Url`), which
 * only the deployment knows, so its host is a variable whose default shows the form.
 */
const servers = [
  {
    url: 'http://127.0.0.1:{port}',
    description: 'The local stack (`npm start`)',
    variables: { port: { default: '3000', description: 'The `PORT` the local stack was started with' } },
  },
  {
    url: 'https://{host}',
    description: 'A deployed stack, through CloudFront',
    variables: { host: { default: 'd111111abcdef8.cloudfront.net', description: 'The distribution’s domain name: the stack output `Url`' } },
  },
];

/** The package is private and names no licence; the document says so rather than invent one. */
const license = { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' };

/** The version of the interface description (interface.md, Versioning), not of the package. */
export const interfaceVersion = '0.4.0';

export interface OpenApiBuild {
  document: Json;
  /** Schemas that could not be expressed in JSON Schema and are documented as "anything". */
  gaps: string[];
}

/** Builds the document from the given operations; openApiDocument() is this for every route served. */
export const buildDocument = (operations: AnyOperation[], options: { notifications?: boolean } = {}): OpenApiBuild => {
  const schemas = new SchemaConverter(namedSchemas(operations, { Problem: Problem as v.GenericSchema }));
  const problem = schemas.reference('Problem', 'response');

  const paths: Record<string, Record<string, Json>> = {};
  const tags: TagName[] = [];
  for (const operation of operations) {
    const pathItem = (paths[operation.path] ??= {});
    pathItem[operation.method.toLowerCase()] = operationObject(operation, schemas);
    if (!tags.includes(operation.tag)) tags.push(operation.tag);
  }

  const responses = Object.fromEntries(
    standardProblemResponses().map(({ name, description, headers }) => [
      name,
      {
        description,
        headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' }, ...(headers ?? {}) },
        content: { [problemMediaType]: { schema: problem } },
      },
    ]),
  );

  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Delivery Operations API',
      version: interfaceVersion,
      description:
        'Multi-tenant delivery operations. Authenticated operations take an OIDC bearer token and `x-tenant-id`; errors are `application/problem+json` (RFC 9457).',
      license,
    },
    // The schemas are JSON Schema 2020-12, which is what this dialect (the 3.1 default) builds on.
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers,
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] })),
    paths,
    // The notifications the service sends, and their data schemas (the event-type catalogue's).
    ...(options.notifications ? { webhooks: webhookNotifications() } : {}),
    components: {
      schemas: Object.fromEntries(Object.entries({ ...schemas.components(), ...(options.notifications ? eventDataComponents() : {}) }).sort(([a], [b]) => a.localeCompare(b))),
      responses,
      parameters: sharedParameters,
      headers: {
        RequestId: responseHeaders.requestId,
        IdempotentReplayed: responseHeaders.idempotentReplayed,
      },
      securitySchemes,
    },
  };
  return { document, gaps: [...schemas.gaps] };
};

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
};

const memo = new WeakMap<readonly AnyOperation[], Json>();

/**
 * The OpenAPI 3.1 document of these operations, with the webhook notifications; built once per
 * list and frozen. The list comes from the top (functions/openapi.ts): this floor does not know
 * the endpoint groups.
 */
export const openApiDocumentOf = (operations: readonly AnyOperation[]): object => {
  let document = memo.get(operations);
  if (!document) memo.set(operations, (document = deepFreeze(buildDocument([...operations], { notifications: true }).document)));
  return document;
};
