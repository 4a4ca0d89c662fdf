import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { BillingProvider, ProviderGrant } from '../../../shared/ports/billing-provider/port.ts';
import type { TestMember, TestTenant } from '../../support/api.ts';

/** Valid RUTs (modulo 11) for the tests' companies. */
export const RUT = { a: '76086428-5', b: '96790240-3', k: '10000013-K' };

export const bindingHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Opens an authorizeUrl as a browser would, without following the redirect: the code in Location. */
export const approve = async (authorizeUrl: string): Promise<string> => {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(response.status, await response.clone().text()).toBe(302);
  const code = new URL(response.headers.get('location')!).searchParams.get('code');
  expect(code).toBeTruthy();
  return code!;
};

/** Authorize on the sandbox, approve, complete: the connection. */
export const connectSandbox = async (tenant: TestTenant, admin: TestMember, clientCode = RUT.a) => {
  const authorization = await tenant.call(admin, 'POST', '/v1/integrations/sandbox/authorizations', { body: { clientCode, name: 'Ventas' } });
  expect(authorization.status, authorization.text).toBe(201);
  const code = await approve(authorization.body.authorizeUrl);
  const connection = await tenant.call(admin, 'POST', '/v1/integrations/connections', { body: { code, bindingSecret: authorization.body.bindingSecret } });
  expect(connection.status, connection.text).toBe(201);
  return { authorization: authorization.body, connection: connection.body };
};

/** Wraps a provider so a test learns the access tokens it handed out (to look for leaks). */
export const recordingGrants = (provider: BillingProvider): { provider: BillingProvider; grants: ProviderGrant[] } => {
  const grants: ProviderGrant[] = [];
  const wrapped = Object.create(provider) as BillingProvider;
  wrapped.exchangeCode = async (code: string) => {
    const grant = await provider.exchangeCode(code);
    grants.push(grant);
    return grant;
  };
  return { provider: wrapped, grants };
};

/** Captures what the handlers log (stdout, JSON lines) while `run` runs. */
export const captureLogs = async (run: () => Promise<void>): Promise<string> => {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const capture = (original: typeof write) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return original(chunk as string, ...(rest as []));
    }) as typeof process.stdout.write;
  process.stdout.write = capture(write);
  process.stderr.write = capture(writeErr);
  try {
    await run();
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
  return lines.join('');
};
