import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PolicyValidationPluginReport } from 'aws-cdk-lib';
import { inject } from 'vitest';

// The run's shared syntheses, without the CDK: a file that reads only a template (test/iam/roles.test.ts)
// does not load the stack's modules. synth.ts adds the construct tree to name resources by.

const root = fileURLToPath(new URL('../../', import.meta.url));
const main = fileURLToPath(new URL('./synth-main.ts', import.meta.url));
/** Set by test/support/global-setup.ts: one folder per run; without it, one per test process. */
export const sharedDir = (() => {
  let dir: string | undefined;
  return (): string => {
    try {
      dir ??= inject('infraSynthDir');
    } catch {
      // Not under the run's global setup.
    }
    return (dir ??= mkdtempSync(join(tmpdir(), 'delivery-ops-synth-')));
  };
})();

/**
 * Makes `name` in the run's shared folder once: the first file to ask runs `make` (which writes
 * it), the others wait for it. A failure is written beside it, so the others fail with it.
 */
const once = async (name: string, make: (path: string) => Promise<void>): Promise<string> => {
  const dir = sharedDir();
  const path = join(dir, name);
  const done = `${path}.done`;
  const failed = `${path}.error`;
  let mine = false;
  try {
    mkdirSync(`${path}.lock`);
    mine = true;
  } catch {
    // Another test file is making it: wait for it below.
  }
  if (mine) {
    try {
      await make(path);
      writeFileSync(done, '');
    } catch (error) {
      writeFileSync(failed, String((error as Error).stack ?? error));
      throw error;
    }
  }
  const deadline = Date.now() + 600_000;
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`the shared synthesis failed in another test file:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the shared synthesis (${path}) did not finish`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return path;
};

type TemplateAndReport = { template: Record<string, any>; edgeTemplates: Record<string, any>[]; nagReport: PolicyValidationPluginReport };

/** A deployment with the billing provider configured, as the tests run it against the fake. */
export const PROVIDER_CONTEXT = {
  providerApiUrl: 'https://api.bsale.io',
  providerOauthUrl: 'https://oauth.bsale.io',
  providerAppId: 'app-42',
  providerRedirectUri: 'https://app.example.cl/provider/callback',
  providerUserTokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:provider-user-token-AbCdEf',
  publicBaseUrl: 'https://api.example.cl',
};

const keyOf = (context: Record<string, string>): string => createHash('sha256').update(JSON.stringify(Object.entries(context).sort())).digest('hex').slice(0, 16);

/**
 * The contexts the infra files share, synthesized together in one child process: most of a
 * child's CPU is loading the CDK and the stack's modules (about 4 s), a synth after that about 1 s.
 */
const SHARED_CONTEXTS: Record<string, string>[] = [{}, PROVIDER_CONTEXT];

/** Synthesizes `contexts` in one child process and writes each one's `template-<key>.json`. */
const synthesize = async (dir: string, contexts: Record<string, string>[]): Promise<void> => {
  // A child process: a synth is long CPU work that would block this worker's messages to vitest.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, JSON.stringify(contexts)], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
  const results = JSON.parse(stdout) as TemplateAndReport[];
  contexts.forEach((context, i) => writeFileSync(join(dir, `template-${keyOf(context)}.json`), JSON.stringify(results[i])));
};

/** The template and nag report of one context, synthesized once per run by whichever file asks first. */
export const templateAndReport = async (context: Record<string, string>): Promise<TemplateAndReport> => {
  const key = keyOf(context);
  const shared = SHARED_CONTEXTS.some((c) => keyOf(c) === key);
  await once(shared ? 'shared-templates' : `template-${key}`, () => synthesize(sharedDir(), shared ? SHARED_CONTEXTS : [context]));
  return JSON.parse(readFileSync(join(sharedDir(), `template-${key}.json`), 'utf8'));
};

/** Only the template of the run's shared synthesis of `context` (no construct tree to name resources by). */
export const sharedTemplate = async (context: Record<string, string> = {}): Promise<Record<string, any>> => (await templateAndReport(context)).template;

/**
 * The cloud assembly as `cdk synth` makes it: infra/app.ts (esbuild bundling every function,
 * cdk-nag as a validation plugin) in a child process, once per run. Returns its folder.
 */
export const sharedAssembly = (): Promise<string> =>
  once('assembly', async (outdir) => {
    // In us-east-1 whatever deploy.settings.json names: the tests' names of ARNs assume it.
    const env = { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ region: 'us-east-1' }) };
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'infra/app.ts'], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 });
  });

