// The words recorded as an attempt's `outcome` and a delivery's `lastOutcome` (decisions 5).
export const attemptOutcomes = [
  'success',
  'http_status',
  'timeout',
  'dns_failure',
  'destination_blocked',
  'tls_failure',
  'connection_refused',
  'connection_reset',
  'response_too_large',
  'destination_disabled',
  'destination_deleted',
  'network_error',
] as const;

export type AttemptOutcome = (typeof attemptOutcomes)[number];
