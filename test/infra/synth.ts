import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import type { CfnElement, PolicyValidationPluginReport } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { templateApp } from './test-app.ts';

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DeletionPolicy?: string };

/** An IAM policy statement as the template holds it. */
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any> };

/** A statement's actions, whether the template gives one or a list. */
export const actionsOf = (s: Statement): string[] => [s.Action].flat();

export interface Synthesized {
  outdir: string;
  stack: DeliveryOpsStack;
  template: Template;
  nagReport: PolicyValidationPluginReport;
  /** Resources of one CloudFormation type, as [logical id, resource]. */
  resources(type: string): [string, Resource][];
  /** The same in the two us-east-1 stacks beside it (stack.edgeAcl: the web ACL; stack.edgeLogs: the access-log delivery). */
  edgeResources(type: string): [string, Resource][];
  /** A construct's logical id in the template (its default child's, for an L2). */
  logicalId(construct: IConstruct): string;
  /** Every statement of the policies attached to the role with this logical id. */
  statementsOf(roleId: string): Statement[];
  /** Removes the cloud assembly (bundled assets included). */
  dispose(): void;
}

const edgeResourcesOf =
  (templates: Record<string, any>[]) =>
  (type: string): [string, Resource][] =>
    templates.flatMap((t) => Object.entries(t.Resources as Record<string, Resource>).filter(([, r]) => r.Type === type));

const root = fileURLToPath(new URL('../../', import.meta.url));
const main = fileURLToPath(new URL('./synth-main.ts', import.meta.url));
/** Set by test/support/global-setup.ts: one folder per run; without it, one per test process. */
const sharedDir = (() => {
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

/** The template and nag report of one context, synthesized once per run by whichever file asks first. */
const templateAndReport = async (
  context: Record<string, string>,
): Promise<{ template: Record<string, any>; edgeTemplates: Record<string, any>[]; nagReport: PolicyValidationPluginReport }> => {
  const key = createHash('sha256').update(JSON.stringify(Object.entries(context).sort())).digest('hex').slice(0, 16);
  const path = await once(`template-${key}.json`, async (file) => {
    // A child process: a synth is long CPU work that would block this worker's messages to vitest.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main, JSON.stringify(context)], { cwd: root, maxBuffer: 256 * 1024 * 1024 });
    writeFileSync(file, stdout);
  });
  return JSON.parse(readFileSync(path, 'utf8'));
};

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

/**
 * One synthesis with cdk-nag, shared by the files of a run: the template and the cdk-nag report come from one
 * synthesis per context, made in a child process (without bundling: the bundles are stack.test.ts's
 * and bundles.test.ts's), and the construct tree to name resources by is built here, also without
 * bundling. The construct tree is the same as the child's, so are the logical ids.
 */
export async function sharedSynth(context: Record<string, string> = {}): Promise<Synthesized> {
  const app = templateApp(context);
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  const { template: json, edgeTemplates, nagReport } = await templateAndReport(context);
  const template = Template.fromJSON(json);
  const all = json.Resources as Record<string, Resource>;
  const resources = (type: string): [string, Resource][] => Object.entries(all).filter(([, r]) => r.Type === type);
  return {
    outdir: sharedDir(),
    stack,
    template,
    nagReport,
    resources,
    edgeResources: edgeResourcesOf(edgeTemplates),
    logicalId: (construct) => stack.resolve(stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string,
    statementsOf: (roleId) =>
      resources('AWS::IAM::Policy')
        .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]),
    // The shared folder is the run's; the global setup's teardown removes it.
    dispose: () => undefined,
  };
}
