import type { AttemptOutcome } from './outcomes.ts';

// OpenSSL verification codes that do not start with CERT_ (those are matched by prefix).
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'EPROTO',
]);

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

/** The error's code; an AggregateError from trying several addresses carries its first member's. */
export function errorCode(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

export function outcomeForError(error: unknown): AttemptOutcome {
  const code = errorCode(error) ?? '';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (RESET_CODES.has(code)) return 'connection_reset';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return 'response_too_large';
  if (TLS_CODES.has(code) || /^(CERT_|ERR_SSL_|ERR_TLS_)/.test(code)) return 'tls_failure';
  return 'network_error';
}

/** Short text for the attempt log: the code and Node's message, which carry no request data. */
export function describeError(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  const text = code && !message.includes(code) ? `${code}: ${message}` : message || code || 'unknown error';
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
