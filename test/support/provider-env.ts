import { pointAtProviderFake } from '../../infra/local/billing-provider.ts';
import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import { startProviderFake, type ProviderFake } from './provider-fake/index.ts';

/**
 * The provider fake on 127.0.0.1 with no rate limit, this process pointed at it (the real
 * provider-chile-v1 adapter reaches it); its `stop` also forgets the secrets port.
 */
export const startFakeProviderEnv = async (): Promise<ProviderFake> => {
  const fake = await startProviderFake();
  fake.setRateLimit(null);
  const secrets = new LocalSecrets();
  pointAtProviderFake(fake, secrets);
  setSecrets(secrets);
  const stop = fake.stop.bind(fake);
  fake.stop = async () => {
    setSecrets(undefined);
    await stop();
  };
  return fake;
};
