import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/dynamodb-local.ts';
import { WAIT_LIMIT_MS } from '../support/wait-limit.ts';

/** Every process below `root` now (pid and command), from /proc: children, their children, and so on. */
const descendants = (root: number): Array<{ pid: number; command: string }> => {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone between the listing and the read
    }
  }
  const found: Array<{ pid: number; command: string }> = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      let command = '?';
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      } catch {
        // gone already
      }
      found.push({ pid: child, command });
      walk(child);
    }
  };
  walk(root);
  return found;
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

const started: Array<{ pid: number }> = [];
afterAll(() => {
  // A failed test leaves nothing behind either.
  for (const { pid } of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

/**
 * Issue 37: `npm start &` then `kill %1`, or a process manager, signals the npm process alone
 * (not the terminal's whole process group, as Ctrl-C does). npm hands the signal to the script's
 * shell; the stack has to hear it and stop everything it started.
 */
describe.each(['SIGTERM', 'SIGINT'] as const)('npm start, sent %s on its own process', (signal) => {
  it('stops the stack: no process it started is left and its port is free', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--', '--in-memory'], {
      env: { ...process.env, PORT: String(port), OIDC_ISSUER: '', OIDC_AUDIENCE: '', OIDC_JWKS_FILE: '' },
    });
    let out = '';
    npm.stdout.on('data', (chunk) => (out += chunk));
    npm.stderr.on('data', (chunk) => (out += chunk));
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    // Ready is the line printed once the stack, the billing provider and the demo tenant are up.
    while (!out.includes('Ctrl-C stops everything')) {
      if (npm.exitCode !== null) throw new Error(`npm start did not come up:\n${out}`);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
    }
    const tree = descendants(npm.pid!);
    started.push(...tree);
    // The shell or the stack's node, and DynamoDB Local's Java below it.
    expect(tree.some((p) => p.command.includes('infra/local/start.ts'))).toBe(true);
    expect(tree.some((p) => p.command.includes('DynamoDBLocal'))).toBe(true);
    expect(await portIsFree(port)).toBe(false);

    npm.kill(signal);
    await exited;
    // npm returns once its script's process has exited; a process that one left behind may take
    // a moment longer to go. The deadline only bounds a failure.
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (tree.some((p) => alive(p.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(tree.filter((p) => alive(p.pid))).toEqual([]);
    expect(await portIsFree(port)).toBe(true);
    expect(out).toContain('stopping…');
  }, 180_000);
});
