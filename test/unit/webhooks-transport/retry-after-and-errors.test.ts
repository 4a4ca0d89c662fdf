import { describe, expect, it } from 'vitest';
import { outcomeForError } from '../../../functions/webhooks/transport/classify-error.ts';
import { parseRetryAfter } from '../../../functions/webhooks/transport/retry-after.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['Sat, 01 Mar 2025 12:01:30 GMT', 90],
    ['Sat, 01 Mar 2025 11:00:00 GMT', 0],
    ['-5', null],
    ['1.5', null],
    ['2025', 2025],
    ['2025-03-01T12:01:00Z', null],
    ['soon', null],
    ['', null],
    [undefined, null],
  ])('%j gives %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('outcomeForError', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });
  it.each([
    ['ECONNREFUSED', 'connection_refused'],
    ['ECONNRESET', 'connection_reset'],
    ['EPIPE', 'connection_reset'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls_failure'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls_failure'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls_failure'],
    ['CERT_HAS_EXPIRED', 'tls_failure'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_failure'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls_failure'],
    ['EPROTO', 'tls_failure'],
    ['EHOSTUNREACH', 'network_error'],
    ['SOMETHING_ELSE', 'network_error'],
  ])('%s is %s', (code, outcome) => {
    expect(outcomeForError(withCode(code))).toBe(outcome);
  });

  it('reads the first member of an AggregateError (several addresses tried)', () => {
    expect(outcomeForError(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]))).toBe('connection_refused');
  });
});
