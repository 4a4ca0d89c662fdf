import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** A PATH holding everything the machine has except the named commands. */
const pathWithout = (hidden: string[]): { path: string; dir: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'preflight-path-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const folder of (process.env.PATH ?? '').split(':')) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (hidden.includes(name)) continue;
      try {
        symlinkSync(join(folder, name), join(bin, name));
      } catch {
        // the first folder on PATH wins, as the shell would choose
      }
    }
  }
  return { path: bin, dir };
};

const run = (purpose: string, env: Record<string, string>) =>
  spawnSync(process.execPath, ['infra/local/preflight.mjs', purpose], { env: { ...process.env, PREFLIGHT_NO_INSTALL: '1', ...env }, encoding: 'utf8' });

describe('preflight of npm start and npm test on a fresh machine', () => {
  const noJava = pathWithout(['java']);
  afterAll(() => rmSync(noJava.dir, { recursive: true, force: true }));

  it('stops at once with one line naming the Debian packages when Java and Chromium are missing', () => {
    const out = run('test', { PATH: noJava.path, CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(out.status).toBe(1);
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('sudo apt-get install -y openjdk-17-jre-headless chromium');
  });

  it('asks only for Java before npm start (the browser is for tests)', () => {
    const out = run('start', { PATH: noJava.path, CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toMatch(/^preflight: missing Java 17 .*`sudo apt-get install -y openjdk-17-jre-headless`\.$/);
  });

  it('passes silently where everything is present', () => {
    const out = run('test', {});
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  });
});
