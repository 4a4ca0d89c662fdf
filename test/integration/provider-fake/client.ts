import { DEMO_COMPANY, startProviderFake, type ProviderFake, type ProviderFakeOptions } from '../../support/provider-fake/index.ts';

export const COMPANY_A = DEMO_COMPANY;
export const COMPANY_B = { clientCode: '77654321-7', clientName: 'Distribuidora Sur Ltda.' };
/** 2026-11-23 00:00 UTC in Unix seconds, as the provider takes emission dates. */
export const DAY = 1_795_392_000;

/** A fake with two companies; tests stop it in afterEach. */
export const startWithCompanies = async (options?: ProviderFakeOptions) => {
  const fake = await startProviderFake(options);
  const tokenA = fake.addCompany(COMPANY_A);
  const tokenB = fake.addCompany(COMPANY_B);
  return { fake, tokenA, tokenB };
};

export interface Reply<T = any> { status: number; body: T; headers: Headers }

/** One call as the adapter makes it: JSON in and out, the token in the `access_token` header. */
export const call = async <T = any>(
  fake: ProviderFake, method: string, path: string,
  options: { token?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<Reply<T>> => {
  const headers: Record<string, string> = {};
  if (options.token) headers.access_token = options.token;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${fake.apiUrl}${path}`, {
    method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal: options.signal,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
};

/** A receipt (document type 3, codeSii 39) with one catalogue line and one described line. */
export const receipt = (salesId: string, overrides: Record<string, unknown> = {}) => ({
  documentTypeId: 3, officeId: 1, emissionDate: DAY, declareSii: 1, salesId,
  details: [
    { variantId: 1, quantity: 2, netUnitValue: 1000, taxId: '[1]' },
    { comment: 'Despacho a domicilio', quantity: 1, netUnitValue: 2990, taxId: '[1]' },
  ],
  ...overrides,
});
