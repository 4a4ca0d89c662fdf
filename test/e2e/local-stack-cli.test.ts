import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { call } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { WAIT_LIMIT_MS } from '../support/wait-limit.ts';

const run = promisify(execFile);
const stack = useLocalStack();
const tsx = 'node_modules/.bin/tsx';

const cli = (script: string, args: string[], port: number) =>
  run(tsx, [`infra/local/${script}`, ...args], { env: { ...process.env, PORT: String(port), TABLE_NAME: '', DYNAMODB_ENDPOINT: '' } });

describe('npm run admin and npm run token against a running stack', () => {
  it('creates a tenant and a member, mints their token, and removes them', async () => {
    const port = stack().port;
    const tenantId = randomUUID();
    await cli('admin-cli.ts', ['tenants', 'create', '--id', tenantId, '--name', 'Frutas del Maule'], port);
    const { stdout: memberId } = await cli('admin-cli.ts', ['members', 'add', '--tenant', tenantId, '--subject', 'rosa', '--role', 'operator', '--first-name', 'Rosa'], port);
    expect(memberId.trim()).toMatch(/^[0-9a-f-]{36}$/);
    const { stdout: token } = await cli('token-cli.ts', ['--subject', 'rosa'], port);
    const ok = await call(stack(), 'POST', '/v1/fleet/vehicles', {
      token: token.trim(),
      tenantId,
      body: { plate: 'RS1234', label: 'Camión Rosa' },
      idempotencyKey: randomUUID(),
    });
    expect(ok.status, ok.text).toBe(201);
    // The command's tenant is the settings item of the API (decisions 13); a zone in any case is stored canonical.
    await cli('admin-cli.ts', ['tenants', 'create', '--id', tenantId, '--name', 'Frutas del Maule SpA', '--time-zone', 'america/punta_arenas'], port);
    const settings = await call(stack(), 'GET', '/v1/tenant/settings', { token: token.trim(), tenantId });
    expect(settings.body).toMatchObject({ name: 'Frutas del Maule SpA', timeZone: 'America/Punta_Arenas', region: 'CL-RM', vehicleDocumentsPolicy: 'warn', version: 2 });
    await cli('admin-cli.ts', ['members', 'remove', '--tenant', tenantId, '--subject', 'rosa'], port);
    const refused = await call(stack(), 'GET', '/v1/fleet/vehicles', { token: token.trim(), tenantId });
    expect(refused.status).toBe(403);
  });

  it('explains bad arguments with the usage and exit code 2', async () => {
    const failure = await cli('admin-cli.ts', ['members', 'add', '--tenant', 'nope'], stack().port).catch((e) => e);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain('--tenant must be a UUID');
    expect(failure.stderr).toContain('usage:');
  });
});

describe('npm start', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGINT');
  });

  it('prints a base URL, a demo tenant and a curl that works, and stops on Ctrl-C', async () => {
    const port = await freePort();
    // As `npm start` runs it: Node with tsx's loader, not the tsx CLI, which relays a SIGINT to its
    // child and SIGKILLs it (exit 130, DynamoDB Local left running) unless the child confirms
    // within 30 ms, which a loaded machine misses. The signal reaches the stack's own process.
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--in-memory'], { env: { ...process.env, PORT: String(port), OIDC_ISSUER: '', OIDC_AUDIENCE: '', OIDC_JWKS_FILE: '' } });
    children.push(child);
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    // Its start is a tsx boot, a DynamoDB Local and a stack: 45 s ran out at load 25 (issue 37).
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (!out.includes('Ctrl-C stops everything')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out).toContain(`base URL     http://127.0.0.1:${port}`);
    const curl = out.slice(out.indexOf('curl -s'), out.indexOf('More tokens')).replace(/\\\n\s*/g, ' ').trim();
    const { stdout } = await run('bash', ['-c', `${curl} -w '\\n%{http_code}'`]);
    const [body, status] = stdout.trim().split('\n');
    expect(status).toBe('200');
    expect(JSON.parse(body)).toEqual({ question: 'where', vehicleId: null, date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/_local/stack`)).rejects.toThrow();
  }, 240_000);
});
