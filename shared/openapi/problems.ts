import * as v from 'valibot';
import { config } from '../config.ts';
import { responseHeaders, type HeaderObject } from './components.ts';

/**
 * The problem+json body that shared/http/problem.ts writes. It is kept here as a schema because
 * no operation declares it; test/unit/openapi checks real error bodies against it.
 */
export const Problem = v.pipe(
  v.object({
    type: v.pipe(v.string(), v.description('A URI naming the kind of problem: `urn:delivery-ops:problem:<code>`.')),
    title: v.pipe(v.string(), v.description('A short human summary of the kind of problem.')),
    status: v.pipe(v.number(), v.integer(), v.description('The HTTP status code.')),
    detail: v.pipe(v.string(), v.description('What went wrong with this request, for a human.')),
    code: v.pipe(v.string(), v.description('A stable machine word to branch on, such as `version_mismatch` (docs/error-codes.md).')),
    requestId: v.pipe(v.string(), v.description('The id of this request, also in the `x-request-id` header; quote it to support.')),
    errors: v.optional(
      v.pipe(
        v.array(
          v.object({
            path: v.pipe(v.string(), v.description('Where the problem is: `path.<name>`, `query.<name>`, `body.<dot.path>` or a header name.')),
            message: v.string(),
          }),
        ),
        v.description('For 400 and 422: every field problem at once.'),
      ),
    ),
    currentVersion: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.description('For 409 `version_mismatch`: the version the resource is at now.')),
    ),
  }),
  v.description('An RFC 9457 problem document.'),
);

export const problemMediaType = 'application/problem+json';

export interface ProblemResponse {
  /** The name under components.responses. */
  name: string;
  description: string;
  headers?: Record<string, HeaderObject>;
}

const maxBodyKiB = config.maxBodyBytes / 1024;

/** Statuses any authenticated operation can answer, with the conditions of decisions.md §3. */
export const problemResponses: Record<number, ProblemResponse> = {
  400: {
    name: 'BadRequest',
    description:
      'Malformed JSON (`malformed_json`), a body sent to an operation that takes none (`unexpected_body`), a bad path or query value, unknown or ill-typed fields, or a missing or malformed required header (`x-tenant-id`, `idempotency-key`). `errors` lists every field problem.',
  },
  401: {
    name: 'Unauthorized',
    description: 'No bearer token, or a token with a bad signature, the wrong issuer or audience, or expired (`token_missing`, `token_invalid`, `token_expired`).',
    headers: { 'WWW-Authenticate': responseHeaders.wwwAuthenticate },
  },
  403: {
    name: 'Forbidden',
    description:
      'A valid token, but the caller is not an active member of the tenant (`not_a_member`), their role may not do this (`role_forbidden`), or two-step verification is required (`mfa_required`). In the cloud also a request that did not come through the public address (`origin_not_verified`).',
  },
  404: {
    name: 'NotFound',
    description: 'No such resource in this tenant. A resource of another tenant answers the same.',
  },
  409: {
    name: 'Conflict',
    description:
      'The `version` sent is not the current one (`version_mismatch`; the body carries `currentVersion` and nothing changed), the resource’s state does not allow this (`invalid_state`), or a request with the same idempotency key is still running (`idempotency_in_progress`, with `Retry-After`).',
    headers: { 'Retry-After': { ...responseHeaders.retryAfter, required: false } },
  },
  410: {
    name: 'Gone',
    description: 'The resource existed but its retention ended (`expired`).',
  },
  413: {
    name: 'PayloadTooLarge',
    description: `The request body is over ${maxBodyKiB} KiB.`,
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The request body is not `application/json`.',
  },
  422: {
    name: 'Unprocessable',
    description:
      'Well-formed but not acceptable, for example a value breaking a business rule, or the idempotency key already used with a different request (`idempotency_key_reused`). `errors` may list the fields.',
  },
  429: {
    name: 'TooManyRequests',
    description: 'The tenant or the client address is over its rate (`rate_limited`). Retry after `Retry-After` seconds.',
    headers: { 'Retry-After': responseHeaders.retryAfter },
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'A dependency cannot answer right now (`dependency_unavailable`). Retry after `Retry-After` seconds.',
    headers: { 'Retry-After': responseHeaders.retryAfter },
  },
};

/**
 * What the chain answers for a public operation whatever the operation does: before it runs come
 * the origin check (in the cloud), the body limits and the input validation, and in front of it
 * all the WAF's rate rule per client address. No token or tenant is involved, so no 401, and a
 * 403 can only be the origin check.
 */
export const publicProblemResponses: Record<number, ProblemResponse> = {
  400: problemResponses[400]!,
  403: {
    name: 'OriginNotVerified',
    description: 'In the cloud, a request that did not come through the public address (`origin_not_verified`).',
  },
  413: problemResponses[413]!,
  415: problemResponses[415]!,
  429: problemResponses[429]!,
  503: problemResponses[503]!,
};

/** The standard responses an operation of this access gets unless it describes the status itself. */
export const chainProblemResponses = (access: 'member' | 'public'): Record<number, ProblemResponse> =>
  access === 'member' ? problemResponses : publicProblemResponses;

/** Every standard response once, for `components.responses`. */
export const standardProblemResponses = (): ProblemResponse[] => [
  ...new Map([...Object.values(problemResponses), ...Object.values(publicProblemResponses)].map((response) => [response.name, response])).values(),
];
