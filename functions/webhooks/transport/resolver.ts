import { Resolver as AresResolver } from 'node:dns/promises';

// Injected so tests (and the attempt itself) can pin the answer that gets checked and then connected to.
export interface Resolver {
  /** Rejects with an Error whose `code` is ENOTFOUND, ETIMEOUT, ... when the name does not resolve. */
  resolve(hostname: string): Promise<string[]>;
}

/** Per query try; c-ares tries twice, so a silent DNS server costs about 2 × this, inside the attempt's 10 s. */
const QUERY_TIMEOUT_MS = 2_500;
const QUERY_TRIES = 2;

/**
 * A resolver on c-ares (`dns.Resolver`): its queries are asynchronous sockets, not calls of
 * getaddrinfo on libuv's four-thread pool, so a slow DNS server answering one tenant's name
 * cannot hold up another tenant's lookups (nor the file and crypto work that shares that pool).
 * `servers` replaces the system's name servers (tests and the local stack's stand-in).
 */
export const aresResolver = (options: { servers?: string[]; timeoutMs?: number; tries?: number } = {}): Resolver => {
  const dns = new AresResolver({ timeout: options.timeoutMs ?? QUERY_TIMEOUT_MS, tries: options.tries ?? QUERY_TRIES });
  if (options.servers?.length) dns.setServers(options.servers);
  return {
    async resolve(hostname) {
      // RFC 6761: `localhost` is never asked of DNS (the local stack's receivers use it).
      if (hostname === 'localhost') return ['127.0.0.1', '::1'];
      // All addresses of both families: every one of them is checked, and the connection may use any.
      const [v4, v6] = await Promise.allSettled([dns.resolve4(hostname), dns.resolve6(hostname)]);
      const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (addresses.length > 0) return addresses;
      throw v4.status === 'rejected' ? v4.reason : (v6 as PromiseRejectedResult).reason;
    },
  };
};

let built: { servers: string; resolver: Resolver } | undefined;

/** The attempts' resolver: c-ares with the system's servers, or WEBHOOK_DNS_SERVERS (comma separated). */
export const systemResolver: Resolver = {
  resolve(hostname) {
    const servers = process.env.WEBHOOK_DNS_SERVERS ?? '';
    if (built?.servers !== servers) built = { servers, resolver: aresResolver({ servers: servers ? servers.split(',').map((s) => s.trim()) : undefined }) };
    return built.resolver.resolve(hostname);
  },
};
