import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import type { ProviderFake } from './provider-fake/index.ts';

export const FAKE_TOKEN_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:provider-user-token';

/**
 * Points the handlers of this process at the provider fake, as a deployment's PROVIDER_*
 * settings would: the user token in the Secrets Manager stand-in, the rest in the environment.
 */
export const useProviderFakeSettings = (fake: ProviderFake, secretArn = FAKE_TOKEN_SECRET_ARN): void => {
  const secrets = new LocalSecrets();
  secrets.set(secretArn, fake.userToken);
  setSecrets(secrets);
  Object.assign(process.env, {
    PROVIDER_API_URL: fake.apiUrl,
    PROVIDER_OAUTH_URL: fake.oauthUrl,
    PROVIDER_APP_ID: fake.appId,
    PROVIDER_REDIRECT_URI: fake.redirectUri,
    PROVIDER_USER_TOKEN_SECRET_ARN: secretArn,
  });
};
