import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';

/** Where the local stack keeps the integrator's token: a name shaped like the cloud's ARN. */
export const LOCAL_USER_TOKEN_ARN = 'arn:aws:secretsmanager:local:000000000000:secret:provider-user-token';

export interface LocalBillingProvider {
  /** What to print: the fake's address and its demo company, when it runs. */
  fake?: { apiUrl: string; oauthUrl: string; clientCode: string };
  stop(): Promise<void>;
}

/** What the settings need of a provider fake (test/support/provider-fake's `ProviderFake`). */
interface FakeSettings {
  apiUrl: string;
  oauthUrl: string;
  appId: string;
  redirectUri: string;
  userToken: string;
}

/**
 * Points PROVIDER_* at a running provider fake, with its integrator token in `secrets` under
 * `secretArn` (the local stack, the tests and the benchmark all connect to the fake this way).
 */
export const pointAtProviderFake = (fake: FakeSettings, secrets: LocalSecrets, secretArn = LOCAL_USER_TOKEN_ARN): void => {
  secrets.set(secretArn, fake.userToken);
  Object.assign(process.env, {
    PROVIDER_API_URL: fake.apiUrl,
    PROVIDER_OAUTH_URL: fake.oauthUrl,
    PROVIDER_APP_ID: fake.appId,
    PROVIDER_REDIRECT_URI: fake.redirectUri,
    PROVIDER_USER_TOKEN_SECRET_ARN: secretArn,
  });
};

/**
 * The billing provider's settings for the local stack. `--provider-fake` starts the fake provider
 * (test/support/provider-fake) and points PROVIDER_* at it; otherwise PROVIDER_* from the
 * environment are used as given. Either way the integrator's token goes through the secrets port
 * (LocalSecrets), as it comes from Secrets Manager in the cloud.
 */
export const startLocalBillingProvider = async (options: { fake: boolean }): Promise<LocalBillingProvider> => {
  const secrets = new LocalSecrets();
  setSecrets(secrets);
  if (!options.fake) {
    const token = process.env.PROVIDER_USER_TOKEN;
    if (token) {
      secrets.set(LOCAL_USER_TOKEN_ARN, token);
      process.env.PROVIDER_USER_TOKEN_SECRET_ARN ??= LOCAL_USER_TOKEN_ARN;
    }
    return { stop: async () => setSecrets(undefined) };
  }
  // Imported only with the flag: the fake is test code, never part of a deployed bundle.
  const { DEMO_COMPANY, startProviderFake } = await import('../../test/support/provider-fake/index.ts');
  const fake = await startProviderFake();
  fake.addCompany(DEMO_COMPANY);
  pointAtProviderFake(fake, secrets);
  return {
    fake: { apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, clientCode: DEMO_COMPANY.clientCode },
    stop: async () => {
      setSecrets(undefined);
      await fake.stop();
    },
  };
};
