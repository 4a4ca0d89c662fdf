import { createHash } from 'node:crypto';
import { defaultCatalogue } from './catalogue.ts';
import { CompanyAccount, IdSequence } from './company.ts';
import { FaultTable } from './faults.ts';
import { OAuthProvider } from './oauth.ts';
import { FakeServer, OAUTH_PREFIX } from './server.ts';
import type { FakeCatalogue, FakeCompany, FakeDocument, FakeDocumentDetail, FakeFault, FakeReference, FakeReturn, FakeShipping } from './types.ts';

export type * from './types.ts';

/** The company the CLI adds, so the local stack has one to log in as. */
export const DEMO_COMPANY: FakeCompany = { clientCode: '76123456-0', clientName: 'Comercial Demo SpA' };

export interface ProviderFake {
  apiUrl: string; // PROVIDER_API_URL, e.g. http://127.0.0.1:PORT (routes /v1/...)
  oauthUrl: string; // PROVIDER_OAUTH_URL: the same server under /oauth
  appId: string;
  userToken: string;
  redirectUri: string;
  /** Adds a company that can approve logins; returns the access token it will hand out. */
  addCompany(company: FakeCompany, data?: Partial<FakeCatalogue>): string;
  /** Simulates the user approving on the login page: returns the code the redirect carries. */
  approve(clientCode: string): Promise<string>;
  /** Makes every code issued so far expired, as if the user took too long. */
  expireCodes(): void;
  faults: { add(fault: FakeFault): void; clear(): void };
  /** What was created, for assertions (documents by salesId, returns). */
  documents(accessToken: string): FakeDocument[];
  returns(accessToken: string): FakeReturn[];
  /**
   * Shippings in creation order, with the salesId and destinationOfficeId each was sent with
   * (the provider keeps neither: a repeated salesId makes a second shipping; its guide is in `documents`).
   */
  shippings(accessToken: string): (FakeShipping & { salesId: string | null; destinationOfficeId: number | null })[];
  /** From now on the shipping's first line is answered with a quantity that does not parse (in the list's expansion and details.json). */
  damageShippingLines(accessToken: string, shippingId: number): void;
  /** The references a document was issued with (`{number, referenceDate, codeSii, reason}`), [] when none. */
  references(accessToken: string, documentId: number): FakeReference[];
  /** A document's lines as `GET /v1/documents/{id}/details.json` lists them. */
  details(accessToken: string, documentId: number): FakeDocumentDetail[];
  /** What the company's next documents report in `informedSii` (0 accepted, 1 sent, 2 rejected). */
  setInformedSii(clientCode: string, value: 0 | 1 | 2): void;
  /** The company's live catalogue: a test changes it to change what the provider answers. */
  catalogue(clientCode: string): FakeCatalogue;
  requests: { method: string; path: string; status: number }[]; // every request served; status 0 if never answered
  setRateLimit(perSecond: number | null): void; // 429 above it (default 10/s per token, null = off)
  stop(): Promise<void>;
}

export interface ProviderFakeOptions {
  port?: number;
  host?: string;
  appId?: string;
  userToken?: string;
  /** Where the login redirects; by default the fake's own page that shows the code. */
  redirectUri?: string;
  /** How long a code can be exchanged; default 10 minutes. */
  codeTtlMs?: number;
  /** The clock for code expiry, rate and generation dates; default Date.now. */
  now?: () => number;
}

/** Starts the fake provider on 127.0.0.1 (a random port unless told) with no companies. */
export async function startProviderFake(options: ProviderFakeOptions = {}): Promise<ProviderFake> {
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const byToken = new Map<string, CompanyAccount>();
  const byCode = new Map<string, CompanyAccount>();
  const faults = new FaultTable();
  const requests: ProviderFake['requests'] = [];
  const settings = {
    appId: options.appId ?? 'fake-app-1',
    userToken: options.userToken ?? 'fake-user-token-8f14e45fceea167a5a36dedd4bea2543',
    redirectUri: options.redirectUri ?? '',
    codeTtlMs: options.codeTtlMs ?? 10 * 60_000,
    now,
  };
  const oauth = new OAuthProvider(settings, (clientCode) => byCode.get(clientCode));
  const state = { base: '', oauth, ids: new IdSequence({ document: 1001, detail: 5001, return: 301, shipping: 701 }), byToken, faults, requests, rateLimit: 10 as number | null, now };
  const server = new FakeServer(state);
  const port = await server.listen(options.port ?? 0, host);
  state.base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  settings.redirectUri ||= `${state.base}${OAUTH_PREFIX}/callback`;

  const account = (accessToken: string) => {
    const found = byToken.get(accessToken);
    if (!found) throw new Error('no company with that access token at the provider fake');
    return found;
  };
  return {
    apiUrl: state.base,
    oauthUrl: `${state.base}${OAUTH_PREFIX}`,
    appId: settings.appId,
    userToken: settings.userToken,
    redirectUri: settings.redirectUri,
    addCompany(company, data) {
      if (byCode.has(company.clientCode)) throw new Error(`company ${company.clientCode} already added`);
      const token = createHash('sha256').update(`token:${byCode.size + 1}:${company.clientCode}`).digest('hex').slice(0, 40);
      const added = new CompanyAccount(company, token, structuredClone({ ...defaultCatalogue(company.clientCode), ...data }));
      byCode.set(company.clientCode, added);
      byToken.set(token, added);
      return token;
    },
    approve: async (clientCode) => oauth.approve(clientCode),
    expireCodes: () => oauth.expireCodes(),
    faults: { add: (fault) => faults.add(fault), clear: () => faults.clear() },
    documents: (accessToken) => account(accessToken).documents,
    returns: (accessToken) => account(accessToken).returns,
    shippings: (accessToken) => account(accessToken).shippings.map((s) => ({ ...s.shipping, salesId: s.salesId, destinationOfficeId: s.destinationOfficeId })),
    references: (accessToken, documentId) => account(accessToken).references.get(documentId) ?? [],
    damageShippingLines: (accessToken, shippingId) => void account(accessToken).damagedShippings.add(shippingId),
    details: (accessToken, documentId) => (account(accessToken).details.get(documentId) ?? []).map((l) => l.detail),
    setInformedSii(clientCode, value) {
      const found = byCode.get(clientCode);
      if (!found) throw new Error(`no company ${clientCode} at the provider fake`);
      found.informedSii = value;
    },
    catalogue(clientCode) {
      const found = byCode.get(clientCode);
      if (!found) throw new Error(`no company ${clientCode} at the provider fake`);
      return found.catalogue;
    },
    requests,
    setRateLimit(perSecond) {
      state.rateLimit = perSecond;
    },
    stop: () => server.stop(),
  };
}
