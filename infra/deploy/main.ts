import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEPLOY_SETTINGS_FILE, readDeploySettings, writeDeploySettings } from './settings.ts';
import { EDGE_REGION } from '../constructs/web-acl.ts';
import { stackNames } from '../deployment.ts';
import { executionPolicyArn } from './execution-policy.ts';
import { afterDeployChecks, parseDeployArgs, planDeploy, resolveRegion, type AccountSettings } from './plan.ts';

// `npm run deploy [-- --first ...]`: gathers the facts with the AWS CLI, lets planDeploy decide
// (infra/deploy/plan.ts), keeps the settings in deploy.settings.json, then runs the commands,
// stopping at the first that fails. The AWS CLI's own profile and credentials apply.

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the AWS CLI for a fact; undefined when it fails (a stack that does not exist, say). */
const aws = (args: string[]): string | undefined => {
  try {
    return execFileSync('aws', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    if (/does not exist|NoSuchEntity/.test(stderr)) return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') fail('The AWS CLI (aws) is not installed: https://docs.aws.amazon.com/cli/');
    if (args[0] === 'configure') return undefined;
    fail(`aws ${args.join(' ')} failed:\n${stderr.trim()}`);
  }
};

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const args = (() => {
  try {
    return parseDeployArgs(process.argv.slice(2));
  } catch (error) {
    fail((error as Error).message);
  }
})();
const settings = readDeploySettings(args.deployment);
const STACKS = stackNames(args.deployment);
const region = resolveRegion(args, settings, aws(['configure', 'get', 'region']));
if (!region) fail('No region: --region <region> (sa-east-1 is the nearest to Chile), or one in the AWS profile.');

const account = aws(['sts', 'get-caller-identity', '--query', 'Account', '--output', 'text'])!;
const accountSettings = JSON.parse(aws(['lambda', 'get-account-settings', '--region', region, '--output', 'json'])!) as AccountSettings;
const stackStatus = Object.fromEntries(
  Object.values(STACKS).map((name) => {
    const where = name === STACKS.app ? region : EDGE_REGION;
    return [name, aws(['cloudformation', 'describe-stacks', '--stack-name', name, '--region', where, '--query', 'Stacks[0].StackStatus', '--output', 'text'])];
  }),
);

const executionPolicyExists = aws(['iam', 'get-policy', '--policy-arn', executionPolicyArn(account), '--query', 'Policy.Arn', '--output', 'text']) !== undefined;
const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
const plan = planDeploy({ args, settings, account, region, accountSettings, stackStatus, interactive, executionPolicyExists });
if (plan.refusals.length > 0) fail(`Not deploying:\n${plan.refusals.map((r) => `- ${r}`).join('\n')}`);
if (!('settings' in plan)) fail('no plan');

for (const note of plan.notes) console.log(`Note: ${note}`);
for (const step of plan.steps) console.log(`# ${step.why}\n${step.command.join(' ')}`);
if (args.dryRun) {
  console.log(`\n# dry run: deploy.settings.json's ${args.deployment} entry would be\n${JSON.stringify(plan.settings, null, 2)}`);
  process.exit(0);
}
writeDeploySettings(args.deployment, plan.settings);
console.log(`\nSettings of ${args.deployment} kept in ${DEPLOY_SETTINGS_FILE} (commit it: the next \`npm run deploy\` repeats them).`);
for (const step of plan.steps) {
  console.log(`\n# ${step.why}`);
  const run = spawnSync(step.command[0]!, step.command.slice(1), { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) fail(`Stopped: \`${step.command.join(' ')}\` failed; nothing after it ran.`);
}
for (const note of plan.notes) console.log(`\nNote: ${note}`);
const outputsFile = `${root}cdk.out/deploy-outputs.json`;
const outputs = existsSync(outputsFile) ? ((JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>)[STACKS.app] ?? {}) : {};
console.log(`\nAfter ${args.first ? 'the first deploy' : 'this deploy'} (docs/cloud-stack.md, After a deploy):\n${afterDeployChecks(region, args.first, outputs, STACKS).join('\n')}`);
