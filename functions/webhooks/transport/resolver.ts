import { promises as dns } from 'node:dns';

// Injected so tests (and the attempt itself) can pin the answer that gets checked and then connected to.
export interface Resolver {
  /** Rejects with an Error whose `code` is ENOTFOUND, EAI_AGAIN, ... when the name does not resolve. */
  resolve(hostname: string): Promise<string[]>;
}

export const systemResolver: Resolver = {
  async resolve(hostname) {
    // All addresses, unsorted: every one of them is checked, and the connection may use any of them.
    const answers = await dns.lookup(hostname, { all: true, order: 'verbatim' });
    return answers.map((answer) => answer.address);
  },
};
