import fc from 'fast-check';
import type { FakeFault } from '../../support/provider-fake/index.ts';

/**
 * How long a hanging provider holds a call before it drops the connection: the fake ends the hang,
 * so the callers' deadlines can be ten times what a loaded machine needs (issue 37) and a hang
 * still costs a step a fraction of a second.
 */
export const HOLD_MS = 300;

/** The provider faults the fault-injection property tests draw from (invoices and guides alike). */
export type FaultName = 'none' | '500_before' | '502_before' | '429' | 'timeout_after_apply' | 'dropped_after_apply' | 'hang' | 'reset';

export const faultOf = (name: FaultName, route: string): FakeFault | undefined => {
  const faults: Record<FaultName, FakeFault | undefined> = {
    none: undefined,
    '500_before': { route, kind: 'status', status: 500 },
    '502_before': { route, kind: 'status', status: 502 },
    '429': { route, kind: 'status', status: 429 },
    timeout_after_apply: { route, kind: 'timeout_after_apply', delayMs: HOLD_MS },
    // The provider applies it, then the connection drops before the answer (a 5xx after applying looks the same to the caller).
    dropped_after_apply: { route, kind: 'timeout_after_apply', delayMs: 20 },
    hang: { route, kind: 'hang', delayMs: HOLD_MS },
    reset: { route, kind: 'reset' },
  };
  return faults[name];
};

/** No fault twice as often as each fault. */
export const Fault = fc.constantFrom<FaultName>('none', 'none', '500_before', '502_before', '429', 'timeout_after_apply', 'dropped_after_apply', 'hang', 'reset');
