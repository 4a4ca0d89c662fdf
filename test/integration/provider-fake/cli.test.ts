import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../../support/provider-fake/main.ts', import.meta.url));

describe('provider fake: CLI for the local stack', () => {
  it('prints the provider settings as env lines, with a demo company that can log in', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => (output += chunk));
      while (!/PROVIDER_FAKE_ACCESS_TOKEN=\S+\n/.test(output)) {
        if (child.exitCode !== null) throw new Error(`the CLI exited: ${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const env = Object.fromEntries(output.trim().split('\n').map((line) => line.split(/=(.*)/s, 2)));
      expect(Object.keys(env)).toEqual([
        'PROVIDER_API_URL', 'PROVIDER_OAUTH_URL', 'PROVIDER_APP_ID', 'PROVIDER_USER_TOKEN', 'PROVIDER_REDIRECT_URI',
        'PROVIDER_FAKE_CLIENT_CODE', 'PROVIDER_FAKE_ACCESS_TOKEN',
      ]);
      const login = new URL(`${env.PROVIDER_OAUTH_URL}/login`);
      login.search = new URLSearchParams({ app_id: env.PROVIDER_APP_ID, redirect_uri: env.PROVIDER_REDIRECT_URI, client_code: env.PROVIDER_FAKE_CLIENT_CODE }).toString();
      expect((await fetch(login)).status).toBe(200);
      const offices = await fetch(`${env.PROVIDER_API_URL}/v1/offices.json`, { headers: { access_token: env.PROVIDER_FAKE_ACCESS_TOKEN } });
      expect(offices.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });
});
