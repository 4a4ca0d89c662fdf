/** The pieces of the document that no operation declares: how callers authenticate and the headers every operation shares. */

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface ParameterObject extends HeaderObject {
  name: string;
  in: 'path' | 'query' | 'header';
}

export const securitySchemes = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'An OIDC access token of a person in the company. Every authenticated operation also needs `x-tenant-id`.',
  },
};

const uuid = { type: 'string', format: 'uuid' };

/** Referenced as `#/components/parameters/<key>`. */
export const sharedParameters = {
  TenantId: {
    name: 'x-tenant-id',
    in: 'header',
    required: true,
    description: 'The company (tenant) the request acts in. The caller must be an active member of it.',
    schema: uuid,
  },
  IdempotencyKey: {
    name: 'idempotency-key',
    in: 'header',
    required: true,
    description:
      'A new UUID for each change. Repeating a request with the same key does not apply the change twice: the same request gets the stored response back (with `idempotent-replayed: true`), a different one 422, one sent while the first is still running 409. Keys are kept 24 hours.',
    schema: uuid,
  },
} satisfies Record<string, ParameterObject>;

export const responseHeaders = {
  requestId: {
    description: 'The id of this request; problem bodies carry it as `requestId`.',
    schema: { type: 'string' },
  },
  retryAfter: {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  wwwAuthenticate: {
    description: 'The authentication scheme: `Bearer`.',
    schema: { type: 'string' },
  },
  idempotentReplayed: {
    description: '`true` when this is the stored response of an earlier request with the same idempotency key.',
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, HeaderObject>;
