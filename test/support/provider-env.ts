import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import { startProviderFake, type ProviderFake } from './provider-fake/index.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:provider-user-token';

/**
 * The provider fake on 127.0.0.1 with no rate limit, and this process's PROVIDER_* settings and
 * secrets port pointed at it, so the real provider-chile-v1 adapter reaches it. `stop` undoes both.
 */
export const startFakeProviderEnv = async (): Promise<ProviderFake> => {
  const fake = await startProviderFake();
  fake.setRateLimit(null);
  const secrets = new LocalSecrets();
  secrets.set(SECRET_ARN, fake.userToken);
  setSecrets(secrets);
  Object.assign(process.env, {
    PROVIDER_API_URL: fake.apiUrl,
    PROVIDER_OAUTH_URL: fake.oauthUrl,
    PROVIDER_APP_ID: fake.appId,
    PROVIDER_REDIRECT_URI: fake.redirectUri,
    PROVIDER_USER_TOKEN_SECRET_ARN: SECRET_ARN,
  });
  const stop = fake.stop.bind(fake);
  fake.stop = async () => {
    setSecrets(undefined);
    await stop();
  };
  return fake;
};
