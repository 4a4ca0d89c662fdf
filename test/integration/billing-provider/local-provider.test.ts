import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_USER_TOKEN_ARN, startLocalBillingProvider, type LocalBillingProvider } from '../../../infra/local/billing-provider.ts';
import { billingProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { secrets } from '../../../shared/ports/secrets.ts';

const NAMES = ['PROVIDER_API_URL', 'PROVIDER_OAUTH_URL', 'PROVIDER_APP_ID', 'PROVIDER_REDIRECT_URI', 'PROVIDER_USER_TOKEN_SECRET_ARN', 'PROVIDER_USER_TOKEN'];
let started: LocalBillingProvider | undefined;
afterEach(async () => {
  await started?.stop();
  started = undefined;
  for (const name of NAMES) delete process.env[name];
});

describe('local stack billing provider (npm start -- --provider-fake)', () => {
  it('starts the fake, points PROVIDER_* at it and keeps the integrator token in the secrets port', async () => {
    started = await startLocalBillingProvider({ fake: true });
    expect(process.env.PROVIDER_API_URL).toBe(started.fake!.apiUrl);
    expect(process.env.PROVIDER_USER_TOKEN).toBeUndefined();
    expect(await secrets().read(LOCAL_USER_TOKEN_ARN)).toBeTruthy();
    const login = new URL(`${process.env.PROVIDER_OAUTH_URL}/login`);
    login.search = new URLSearchParams({ app_id: process.env.PROVIDER_APP_ID!, redirect_uri: process.env.PROVIDER_REDIRECT_URI!, client_code: started.fake!.clientCode }).toString();
    expect((await fetch(login)).status).toBe(200);
    // The real adapter reaches it: a made-up code is a refusal, not an outage.
    await expect(billingProvider('provider-chile-v1').exchangeCode('0123456789abcdef')).rejects.toMatchObject({ code: 'provider_refused' });
  });

  it('without the flag takes PROVIDER_USER_TOKEN from the environment into the secrets port', async () => {
    process.env.PROVIDER_USER_TOKEN = 'integrator-token-from-env';
    started = await startLocalBillingProvider({ fake: false });
    expect(started.fake).toBeUndefined();
    expect(await secrets().read(process.env.PROVIDER_USER_TOKEN_SECRET_ARN!)).toBe('integrator-token-from-env');
  });
});
