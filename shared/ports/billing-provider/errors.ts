import { ProblemError } from '../../errors.ts';

/**
 * What a provider call can end in besides an answer. Each is also a problem a client may see,
 * so one that no caller handles still answers truthfully: "try later" is never turned into "no".
 */

/** No definitive answer: 429, 5xx, a timeout, a dropped connection. The call may have been applied. */
export class ProviderUnavailableError extends ProblemError {
  readonly status = 503;
  readonly title = 'Service unavailable';
  readonly code = 'provider_unavailable';
  constructor(
    readonly reason: 'rate_limited' | 'server_error' | 'timeout' | 'network' | 'bad_answer' | 'too_large',
    readonly providerStatus: number | null = null,
    retryAfterSeconds = 5,
  ) {
    super(`The billing provider could not answer (${reason}${providerStatus ? ` ${providerStatus}` : ''}); retry in ${retryAfterSeconds} s.`);
    this.headers['retry-after'] = String(retryAfterSeconds);
  }
}

/** A definitive "no" from the provider (4xx other than 401, or an exchange answered with another code). */
export class ProviderRefusedError extends ProblemError {
  readonly status = 422;
  readonly title = 'Refused by the billing provider';
  readonly code = 'provider_refused';
  constructor(
    readonly providerStatus: number,
    readonly providerMessage: string,
  ) {
    super(`The billing provider refused the request (${providerStatus}): ${providerMessage}`);
  }
}

/** The provider no longer accepts the connection's token (its 401): authorize again. */
export class ProviderTokenRejectedError extends ProblemError {
  readonly status = 409;
  readonly title = 'Connection needs authorizing again';
  readonly code = 'connection_unauthorized';
  constructor() {
    super('The billing provider no longer accepts this connection; authorize it again.');
  }
}

/** A provider route on a deployment without the PROVIDER_* settings. */
export class ProviderNotConfiguredError extends ProblemError {
  readonly status = 503;
  readonly title = 'Service unavailable';
  readonly code = 'provider_not_configured';
  constructor(missing: string[]) {
    super(`This deployment is not connected to the billing provider (missing ${missing.join(', ')}); the sandbox works without it.`);
    this.headers['retry-after'] = '3600';
  }
}
