import { ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { BillingProvider } from '../../../shared/ports/billing-provider/port.ts';
import { providerCall } from '../../records/imports/provider-pages.ts';

/** 429s waited out per call: a guide's issue must still answer within its 8 s deadline. */
const RATE_WAITS = 2;

/** The call's own deadline, passed as the port's last argument (`{signal}`: CallOptions or PageRequest). */
const signalOf = (args: unknown[]): AbortSignal | undefined => {
  const last = args[args.length - 1];
  const signal = last && typeof last === 'object' ? (last as { signal?: unknown }).signal : undefined;
  return signal instanceof AbortSignal ? signal : undefined;
};

/**
 * The provider with every call of one connection taking its turn, spaced as the import worker
 * spaces its own (about 10 requests a second per token, provider-chile.md), and a 429 waited out
 * for its Retry-After. A 429 is answered before anything is applied, so the repeat is safe. A call
 * whose deadline passed while it waited (its turn, or a 429's wait) is not sent at all: the intent
 * has already been answered `unknown` and must not meet a send it did not count on.
 */
export const spacedProvider = (provider: BillingProvider, connectionId: string): BillingProvider =>
  new Proxy(provider, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'exchangeCode') return value;
      return (...args: unknown[]) => {
        const signal = signalOf(args);
        return providerCall(
          connectionId,
          () => {
            if (signal?.aborted) return Promise.reject(new ProviderUnavailableError('timeout'));
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          },
          RATE_WAITS,
        );
      };
    },
  });
