import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.ts';

/**
 * The tests raise the cloud's time limits (vitest.config.ts env) so that a loaded machine does not
 * reach them; here, with the variables unset, the cloud's values hold.
 */
const RAISED = ['TABLE_REQUEST_TIMEOUT_MS', 'TABLE_CONNECT_TIMEOUT_MS', 'PROVIDER_DEADLINE_MS', 'WEBHOOK_ATTEMPT_TIMEOUT_MS'] as const;

describe('time limits in the cloud (no variable set)', () => {
  const saved = Object.fromEntries(RAISED.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of RAISED) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('are 3 s a table call, 1 s a connection, 8 s for the billing provider (decisions 9) and 10 s a webhook attempt (the specification)', () => {
    for (const name of RAISED) delete process.env[name];
    expect([config.tableRequestTimeoutMs, config.tableConnectTimeoutMs, config.providerDeadlineMs, config.webhookAttemptTimeoutMs]).toEqual([3_000, 1_000, 8_000, 10_000]);
  });

  it('follow their variables, and refuse a value that is not a whole number of milliseconds', () => {
    process.env.PROVIDER_DEADLINE_MS = '30000';
    process.env.WEBHOOK_ATTEMPT_TIMEOUT_MS = '45000';
    expect([config.providerDeadlineMs, config.webhookAttemptTimeoutMs]).toEqual([30_000, 45_000]);
    process.env.PROVIDER_DEADLINE_MS = '8.5';
    expect(() => config.providerDeadlineMs).toThrow('PROVIDER_DEADLINE_MS must be a non-negative integer');
  });
});
