import type { Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type { IdempotencyClaim } from '../idempotency.ts';
import type { Member } from '../tenancy/members.ts';
import type { AnyOperation } from './operation.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What the middlewares learn about a request, kept on the Lambda context as middy does. */
export interface ApiContext extends Context {
  requestId: string;
  operation: AnyOperation;
  receivedAt: Date;
  /** Absolute base of the links this request's answer makes, or '' for relative ones. */
  publicBaseUrl: string;
  /** The viewer's address from CloudFront-Viewer-Address, once the origin check vouched for it. */
  viewerAddress?: string;
  claims?: JwtPayload;
  tenantId?: string;
  member?: Member;
  body?: unknown;
  input?: { params: unknown; query: unknown; body: unknown };
  idempotency?: IdempotencyClaim;
}

export type ApiRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;
export type ApiMiddleware = import('@middy/core').MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;

/** Header lookup that does not depend on the case the client or gateway used. */
export const header = (event: ApiEvent, name: string): string | undefined => {
  const headers = event.headers ?? {};
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
};
