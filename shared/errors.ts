/**
 * Every failure a client can see is one of these classes. Each carries the HTTP status and a
 * stable `code` that clients may branch on; the list lives in docs/error-codes.md.
 */
export interface FieldIssue {
  path: string;
  message: string;
}

export abstract class ProblemError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  abstract readonly title: string;
  /** Extra members of the problem document (RFC 9457 allows extensions). */
  readonly extensions: Record<string, unknown> = {};
  readonly headers: Record<string, string> = {};
}

export class BadRequestError extends ProblemError {
  readonly status = 400;
  readonly title = 'Bad request';
  constructor(
    message: string,
    readonly code = 'bad_request',
    readonly errors: FieldIssue[] = [],
  ) {
    super(message);
    if (errors.length > 0) this.extensions.errors = errors;
  }
}

export class ValidationError extends BadRequestError {
  constructor(errors: FieldIssue[], message = 'The request has invalid fields.') {
    super(message, 'validation_failed', errors);
  }
}

export class UnauthorizedError extends ProblemError {
  readonly status = 401;
  readonly title = 'Unauthorized';
  constructor(
    message: string,
    readonly code: 'token_missing' | 'token_invalid' | 'token_expired' = 'token_invalid',
  ) {
    super(message);
    this.headers['www-authenticate'] = 'Bearer';
  }
}

export class ForbiddenError extends ProblemError {
  readonly status = 403;
  readonly title = 'Forbidden';
  constructor(
    message: string,
    readonly code: 'not_a_member' | 'role_forbidden' | 'mfa_required' | 'not_assigned' = 'role_forbidden',
  ) {
    super(message);
  }
}

export class NotFoundError extends ProblemError {
  readonly status = 404;
  readonly title = 'Not found';
  readonly code = 'not_found';
  constructor(message = 'The resource does not exist.') {
    super(message);
  }
}

export class VersionMismatchError extends ProblemError {
  readonly status = 409;
  readonly title = 'Version mismatch';
  readonly code = 'version_mismatch';
  constructor(currentVersion: number, sentVersion: number) {
    super(`The resource is at version ${currentVersion}, the request names version ${sentVersion}.`);
    this.extensions.currentVersion = currentVersion;
  }
}

export class StateConflictError extends ProblemError {
  readonly status = 409;
  readonly title = 'Conflict';
  constructor(
    message: string,
    readonly code = 'invalid_state',
  ) {
    super(message);
  }
}

export class IdempotencyInProgressError extends ProblemError {
  readonly status = 409;
  readonly title = 'Request in progress';
  readonly code = 'idempotency_in_progress';
  constructor() {
    super('A request with this idempotency key is still being processed; retry later.');
    this.headers['retry-after'] = '1';
  }
}

export class IdempotencyKeyReusedError extends ProblemError {
  readonly status = 422;
  readonly title = 'Idempotency key reused';
  readonly code = 'idempotency_key_reused';
  constructor() {
    super('This idempotency key was already used with a different request.');
  }
}

export class GoneError extends ProblemError {
  readonly status = 410;
  readonly title = 'Gone';
  readonly code = 'expired';
  constructor(message: string) {
    super(message);
  }
}

export class PayloadTooLargeError extends ProblemError {
  readonly status = 413;
  readonly title = 'Payload too large';
  readonly code = 'payload_too_large';
  constructor(limitBytes: number) {
    super(`The request body exceeds ${limitBytes} bytes.`);
  }
}

export class UnsupportedMediaTypeError extends ProblemError {
  readonly status = 415;
  readonly title = 'Unsupported media type';
  readonly code = 'unsupported_media_type';
  constructor() {
    super('The request body must be application/json.');
  }
}

export class UnprocessableError extends ProblemError {
  readonly status = 422;
  readonly title = 'Unprocessable request';
  constructor(
    message: string,
    readonly code: string,
    errors: FieldIssue[] = [],
  ) {
    super(message);
    if (errors.length > 0) this.extensions.errors = errors;
  }
}

export class RateLimitedError extends ProblemError {
  readonly status = 429;
  readonly title = 'Too many requests';
  readonly code = 'rate_limited';
  constructor(retryAfterSeconds: number) {
    super(`Rate limit exceeded; retry in ${retryAfterSeconds} s.`);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

export class DependencyUnavailableError extends ProblemError {
  readonly status = 503;
  readonly title = 'Service unavailable';
  readonly code = 'dependency_unavailable';
  constructor(dependency: string, retryAfterSeconds = 2) {
    super(`${dependency} cannot answer right now; retry in ${retryAfterSeconds} s.`);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

/** A request that did not come through the service's CloudFront distribution (issue 7, item 2). */
export class OriginNotVerifiedError extends ProblemError {
  readonly status = 403;
  readonly title = 'Forbidden';
  readonly code = 'origin_not_verified';
  constructor() {
    super('Requests reach this API only through its public address.');
  }
}
