import type { BillingProvider } from '../../../shared/ports/billing-provider/port.ts';
import { providerCall } from '../../records/imports/provider-pages.ts';

/** 429s waited out per call: a guide's issue must still answer within its 8 s deadline. */
const RATE_WAITS = 2;

/**
 * The provider with every call of one connection taking its turn, spaced as the import worker
 * spaces its own (about 10 requests a second per token, provider-chile.md), and a 429 waited out
 * for its Retry-After. A 429 is answered before anything is applied, so the repeat is safe.
 */
export const spacedProvider = (provider: BillingProvider, connectionId: string): BillingProvider =>
  new Proxy(provider, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'exchangeCode') return value;
      return (...args: unknown[]) => providerCall(connectionId, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args), RATE_WAITS);
    },
  });
