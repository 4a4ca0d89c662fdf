import { ProblemError, StateConflictError, UnprocessableError } from '../../shared/errors.ts';

/** The completion errors of decisions 10, each with its stable code (docs/error-codes.md). */
export class InvalidClientCodeError extends UnprocessableError {
  constructor() {
    super('clientCode is not a valid RUT: its check digit does not match (modulo 11).', 'invalid_client_code', [
      { path: 'body.clientCode', message: 'must be a RUT with a valid check digit, such as 76.086.428-5' },
    ]);
  }
}

export class AuthorizationNotFoundError extends UnprocessableError {
  constructor() {
    super('No authorization of this tenant has this bindingSecret.', 'authorization_not_found', [{ path: 'body.bindingSecret', message: 'matches no authorization' }]);
  }
}

export class AuthorizationExpiredError extends ProblemError {
  readonly status = 410;
  readonly title = 'Gone';
  readonly code = 'authorization_expired';
  constructor(expiresAt: string) {
    super(`The authorization expired at ${expiresAt}; start a new one.`);
  }
}

export class AuthorizationUsedError extends StateConflictError {
  constructor(connectionId: string | null) {
    super('The authorization was already completed into a connection.', 'authorization_used');
    if (connectionId) this.extensions.connectionId = connectionId;
  }
}

export class AuthorizationRefusedError extends UnprocessableError {
  constructor() {
    super('The billing provider refused the code; authorize again.', 'authorization_refused', [{ path: 'body.code', message: 'was refused by the provider' }]);
  }
}

export class ClientCodeMismatchError extends UnprocessableError {
  constructor(expected: string, got: string) {
    super(`The provider authorized company ${got}, but the authorization was made for ${expected}.`, 'client_code_mismatch', [
      { path: 'body.code', message: `authorizes ${got}, not ${expected}` },
    ]);
  }
}

export class ConnectionRevokedError extends StateConflictError {
  constructor() {
    super('The connection is revoked; its records stay readable, but nothing can reach the provider through it.', 'connection_revoked');
  }
}
