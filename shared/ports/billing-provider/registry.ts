import { secrets } from '../secrets.ts';
import { ProviderNotConfiguredError } from './errors.ts';
import type { BillingProvider, ProviderOrigin } from './port.ts';
import { ProviderChile } from './provider-chile.ts';
import { SandboxProvider } from './sandbox.ts';

/** The deployment's provider-chile.md settings; the user token lives in Secrets Manager. */
export interface ProviderSettings {
  apiUrl: string;
  oauthUrl: string;
  appId: string;
  redirectUri: string;
  userTokenSecretArn: string;
}

const SETTINGS = {
  apiUrl: 'PROVIDER_API_URL',
  oauthUrl: 'PROVIDER_OAUTH_URL',
  appId: 'PROVIDER_APP_ID',
  redirectUri: 'PROVIDER_REDIRECT_URI',
  userTokenSecretArn: 'PROVIDER_USER_TOKEN_SECRET_ARN',
} as const satisfies Record<keyof ProviderSettings, string>;

/** The settings, or 503 provider_not_configured naming what is missing. */
export const providerSettings = (): ProviderSettings => {
  const missing = Object.values(SETTINGS).filter((name) => !process.env[name]);
  if (missing.length > 0) throw new ProviderNotConfiguredError(missing);
  return Object.fromEntries(Object.entries(SETTINGS).map(([key, name]) => [key, process.env[name]!])) as unknown as ProviderSettings;
};

const userToken = async (secretArn: string): Promise<string> => {
  // The secrets port caches per container; an absent value is a deployment without the token.
  const value = await secrets().read(secretArn);
  if (!value) throw new ProviderNotConfiguredError(['PROVIDER_USER_TOKEN']);
  return value;
};

let sandbox: SandboxProvider | undefined;
let chile: { key: string; provider: BillingProvider } | undefined;
let overrides: Partial<Record<ProviderOrigin, BillingProvider>> = {};

/** The one sandbox of this process (tests reach its records and faults through it). */
export const sandboxProvider = (): SandboxProvider => (sandbox ??= new SandboxProvider());

/** The provider behind an origin, built once per container (module scope), as the other ports are. */
export const billingProvider = (origin: ProviderOrigin): BillingProvider => {
  const override = overrides[origin];
  if (override) return override;
  if (origin === 'sandbox-v1') return sandboxProvider();
  const settings = providerSettings();
  const key = JSON.stringify(settings);
  if (chile?.key !== key) {
    chile = {
      key,
      provider: new ProviderChile({ apiUrl: settings.apiUrl, oauthUrl: settings.oauthUrl, appId: settings.appId, userToken: () => userToken(settings.userTokenSecretArn) }),
    };
  }
  return chile.provider;
};

/** Tests install another implementation for an origin; `resetBillingProviders` forgets them. */
export const setBillingProvider = (origin: ProviderOrigin, provider: BillingProvider | undefined): void => {
  overrides = { ...overrides, [origin]: provider };
};

export const resetBillingProviders = (): void => {
  overrides = {};
  sandbox = undefined;
  chile = undefined;
};
