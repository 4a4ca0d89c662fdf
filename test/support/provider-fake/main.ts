/**
 * Starts the provider fake for the local stack and prints its settings as env lines:
 *   tsx test/support/provider-fake/main.ts [--port 4600] [--host 127.0.0.1] [--redirect-uri URL]
 * It adds one demo company, so the real adapter's flow can be walked through without an account.
 */
import { parseArgs } from 'node:util';
import { DEMO_COMPANY, startProviderFake } from './index.ts';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' }, 'redirect-uri': { type: 'string' } },
});
const fake = await startProviderFake({ port: Number(values.port), host: values.host, redirectUri: values['redirect-uri'] });
const demoToken = fake.addCompany(DEMO_COMPANY);
const lines = {
  PROVIDER_API_URL: fake.apiUrl,
  PROVIDER_OAUTH_URL: fake.oauthUrl,
  PROVIDER_APP_ID: fake.appId,
  PROVIDER_USER_TOKEN: fake.userToken,
  PROVIDER_REDIRECT_URI: fake.redirectUri,
  PROVIDER_FAKE_CLIENT_CODE: DEMO_COMPANY.clientCode,
  PROVIDER_FAKE_ACCESS_TOKEN: demoToken,
};
for (const [name, value] of Object.entries(lines)) console.log(`${name}=${value}`);

const stop = () => void fake.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
