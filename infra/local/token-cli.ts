import { parseArgs } from 'node:util';
import { runningStack } from './stack-client.ts';

/** `npm run token -- --subject <sub> [--mfa]`: a dev access token from the running stack's issuer. */
const { values } = parseArgs({
  options: { subject: { type: 'string' }, mfa: { type: 'boolean', default: false }, 'ttl-seconds': { type: 'string' } },
});
if (!values.subject) {
  console.error('usage: npm run token -- --subject <sub> [--mfa] [--ttl-seconds N]');
  process.exit(2);
}
try {
  const stack = await runningStack();
  const response = await fetch(`${stack.baseUrl}/_local/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject: values.subject, mfa: values.mfa, ttlSeconds: values['ttl-seconds'] ? Number(values['ttl-seconds']) : undefined }),
  });
  const body = (await response.json()) as { token?: string; message?: string };
  if (!response.ok || !body.token) throw new Error(body.message ?? `status ${response.status}`);
  console.log(body.token);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
