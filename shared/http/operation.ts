import type * as v from 'valibot';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { Permission } from '../auth/roles.ts';
import type { TagName } from '../openapi/tags.ts';
import type { Write } from '../table/transaction.ts';
import type { Member } from '../tenancy/members.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
type Schema = v.GenericSchema;
type Out<S> = S extends Schema ? v.InferOutput<S> : undefined;

/** Who is calling, as established by the middleware chain before the operation runs. */
export interface Caller {
  requestId: string;
  tenantId: string;
  member: Member;
  claims: JwtPayload;
  now: Date;
  /** Absolute base for links in the answer (PUBLIC_BASE_URL, or the verified viewer host), or ''. */
  publicBaseUrl: string;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What an operation returns: the response, and the writes that make its change. The chain
 * commits the writes, with the idempotency record and the audit entry, in one transaction
 * before answering. Writes come with the id of the resource they change (the new one for a
 * create), so the types refuse an operation that would leave its change out of the audit log.
 */
export type Outcome = Answer &
  AfterCommit &
  (
    | { writes?: undefined; resourceId?: undefined }
    | {
        writes: Write[];
        resourceId: string;
        /** The operation committed the request's audit entry itself, with an earlier part of the change (invoice issue). */
        auditedEarlier?: true;
      }
  );

interface AfterCommit {
  /**
   * Runs once the writes committed (never on a replay): hands work to a queue. It must be safe to
   * lose, since a crash can come between the two; whoever relies on it has a sweep behind it.
   */
  afterCommit?: () => Promise<void>;
}

export interface ResponseSpec {
  description: string;
  schema?: Schema;
  /** application/json unless said (the tracking page answers text/html). */
  contentType?: string;
  headers?: Record<string, { description: string; schema?: Schema }>;
}

interface Common<P, Q, B> {
  /** A stable name, also the idempotency scope and the OpenAPI operationId. */
  operationId: string;
  method: Method;
  /** The path exactly as the specification writes it, with {name} parameters. */
  path: string;
  summary: string;
  /** The OpenAPI tag; shared/openapi/tags.ts describes each. */
  tag: TagName;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
}

export interface AuthenticatedOperation<P = unknown, Q = unknown, B = unknown> extends Common<P, Q, B> {
  access: 'member';
  permission: Permission;
  /** Requires the idempotency-key header and stores the response for replays. */
  idempotent?: boolean;
  /** The response reveals a secret: its idempotency copy is stored sealed (envelope encryption). */
  responseHasSecret?: boolean;
  /**
   * Top-level fields of the answer its idempotency copy keeps as null: personal data that lives
   * only on the resource (the receipt of goods, decisions 16), so a replay does not hold a second
   * copy for 24 hours that an erasure would miss.
   */
  replayOmits?: readonly string[];
  /** Requires two-step verification in the token (amr) unless the issuer enforces it for all. */
  requiresMfa?: boolean;
  /**
   * Concurrent requests meet on a shared item (a counter, a route's last position) and DynamoDB
   * cancels all but one transaction: the chain runs the operation again instead of answering 409.
   * Only for operations whose outcome does not depend on a version the client sent.
   */
  retryOnConflict?: boolean;
  handle(input: { params: Out<P>; query: Out<Q>; body: Out<B>; caller: Caller }): Promise<Outcome>;
}

export interface PublicOperation<P = unknown, Q = unknown, B = unknown> extends Common<P, Q, B> {
  access: 'public';
  handle(input: { params: Out<P>; query: Out<Q>; body: Out<B>; requestId: string; now: Date; sourceIp: string; acceptLanguage?: string }): Promise<Outcome>;
}

export type AnyOperation = AuthenticatedOperation<any, any, any> | PublicOperation<any, any, any>;

/** Typed constructors: the schemas given here type the handler's input, so nothing is written twice. */
export const defineOperation = <P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
  operation: Omit<AuthenticatedOperation<P, Q, B>, 'access'>,
): AuthenticatedOperation<P, Q, B> => ({ ...operation, access: 'member' });

export const definePublicOperation = <P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined>(
  operation: Omit<PublicOperation<P, Q, B>, 'access'>,
): PublicOperation<P, Q, B> => ({ ...operation, access: 'public' });

export const routeKey = (operation: Pick<AnyOperation, 'method' | 'path'>): string => `${operation.method} ${operation.path}`;
