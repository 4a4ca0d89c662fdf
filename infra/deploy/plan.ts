import type { DeploySettings } from './settings.ts';
import { API_SHARE, NEW_TABLE_STREAM_SHARDS, USUAL_QUOTA, capacityPlan } from '../capacity.ts';
import { EDGE_REGION } from '../constructs/web-acl.ts';
import { DEFAULT_DEPLOYMENT, DeploymentNameError, checkDeploymentName, stackNames, type StackNames } from '../deployment.ts';
import { PLACEHOLDER_OIDC_AUDIENCE, PLACEHOLDER_OIDC_ISSUER, concurrencyReservations, reservationsFit } from '../stack.ts';
import { EXECUTION_POLICY_FILE, EXECUTION_POLICY_NAME, executionPolicyArn } from './execution-policy.ts';

/** An account past every worker's ceiling: the reservations at their full size. */
const FULL_SIZE_ACCOUNT = 1_000_000;

/**
 * What `npm run deploy` does, decided without AWS: infra/deploy/main.ts gathers the facts (the
 * account's Lambda settings, the stacks' states), this turns them and the flags into the settings
 * to keep and the commands to run, or into refusals. Pure, so test/infra/deploy-plan.test.ts checks it offline.
 */

/** prod's stacks; another deployment's are stackNames(deployment). */
export const STACKS: StackNames = stackNames(DEFAULT_DEPLOYMENT);

export interface DeployArgs {
  /** --deployment NAME or -c deployment=NAME (decisions 20): which entry of the settings file, which stacks. */
  deployment: string;
  /** --yes: deploy without cdk's approval prompts (`--require-approval never`), for CI. */
  yes: boolean;
  first: boolean;
  dryRun: boolean;
  region?: string;
  /** Extra or changed settings: --issuer, --audience, --alarm-email, -c key=value. */
  set: DeploySettings;
  noAlarmEmail: boolean;
}

/** `aws lambda get-account-settings` as JSON (only the fields read here). */
export interface AccountSettings {
  AccountLimit?: { ConcurrentExecutions?: number; UnreservedConcurrentExecutions?: number };
}

export interface DeployFacts {
  args: DeployArgs;
  /** The deployment's entry of deploy.settings.json, if it has one. */
  settings?: DeploySettings;
  /** Whether a person is at a terminal to answer cdk's approval prompts. @default true */
  interactive?: boolean;
  /** Whether the shipped CloudFormation execution policy exists in the account. @default false */
  executionPolicyExists?: boolean;
  account: string;
  region: string;
  accountSettings: AccountSettings;
  /** StackStatus of each stack by name; absent when the stack does not exist. */
  stackStatus: Partial<Record<string, string>>;
}

export interface Step {
  why: string;
  command: string[];
}

export type Plan = { refusals: string[] } | { refusals: []; settings: DeploySettings; steps: Step[]; notes: string[] };

/** Keys the script decides itself: a stored or passed value would defeat it. */
const SCRIPT_KEYS = ['tableDeletionProtection'];

export class DeployArgsError extends Error {
  readonly code = 'deploy_args_invalid';
}

export function parseDeployArgs(argv: readonly string[]): DeployArgs {
  const args: DeployArgs = { deployment: DEFAULT_DEPLOYMENT, yes: false, first: false, dryRun: false, set: {}, noAlarmEmail: false };
  const named: Record<string, string> = { '--issuer': 'oidcIssuer', '--audience': 'oidcAudience', '--alarm-email': 'alarmEmail' };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('-')) throw new DeployArgsError(`${flag} needs a value`);
      return next;
    };
    if (flag === '--first') args.first = true;
    else if (flag === '--yes') args.yes = true;
    else if (flag === '--deployment') args.deployment = value();
    else if (flag === '--dry-run') args.dryRun = true;
    else if (flag === '--no-alarm-email') args.noAlarmEmail = true;
    else if (flag === '--region') args.region = value();
    else if (named[flag]) args.set[named[flag]] = value();
    else if (flag === '-c' || flag === '--context') {
      const pair = value();
      const at = pair.indexOf('=');
      if (at < 1) throw new DeployArgsError(`-c takes key=value, not ${pair}`);
      if (pair.slice(0, at) === 'deployment') args.deployment = pair.slice(at + 1);
      else args.set[pair.slice(0, at)] = pair.slice(at + 1);
    } else throw new DeployArgsError(`unknown flag ${flag} (flags: --first, --deployment, --region, --issuer, --audience, --alarm-email, --no-alarm-email, -c key=value, --yes, --dry-run)`);
  }
  try {
    checkDeploymentName(args.deployment);
  } catch (error) {
    if (error instanceof DeploymentNameError) throw new DeployArgsError(error.message);
    throw error;
  }
  return args;
}

/** The region to deploy to: --region, else the settings file's, else the profile's. */
export const resolveRegion = (args: DeployArgs, settings: DeploySettings | undefined, profileRegion: string | undefined): string | undefined =>
  args.region ?? (settings?.region === undefined ? undefined : String(settings.region)) ?? (profileRegion?.trim() || undefined);

const inProgressOrFailed = (status: string) => status.endsWith('_IN_PROGRESS') || status.endsWith('_FAILED');
const exists = (status: string | undefined): status is string => status !== undefined && status !== 'DELETE_COMPLETE';

export function planDeploy(facts: DeployFacts): Plan {
  const { args, account, region } = facts;
  const { deployment } = args;
  const STACKS = stackNames(deployment);
  const context = ['-c', `deployment=${deployment}`];
  const approval = args.yes ? ['--require-approval', 'never'] : [];
  const refusals: string[] = [];
  const notes: string[] = [];
  if (!facts.settings && !args.first) {
    return { refusals: [`No entry for deployment ${deployment} in deploy.settings.json: its first deploy is \`npm run deploy -- --first --deployment ${deployment} --region <region> --issuer <url> --audience <aud> --alarm-email <address>\`.`] };
  }
  // A deployment lives in one region: moving it would leave its stacks where they are and write another region over its settings.
  const kept = facts.settings?.region === undefined ? undefined : String(facts.settings.region);
  if (kept !== undefined && kept !== region) {
    refusals.push(`Deployment ${deployment} is in ${kept}, not ${region}: a deployment lives in one region. For another region, name another deployment (--deployment <name>).`);
  }
  if (facts.interactive === false && !args.yes) {
    refusals.push('No terminal for cdk\'s approval prompts (the IAM and security changes): --yes deploys without them (`--require-approval never`), for CI.');
  }
  for (const key of SCRIPT_KEYS) if (key in args.set) refusals.push(`${key} is not a setting: the first deploy turns deletion protection off, then on, by itself.`);

  const settings: DeploySettings = { ...facts.settings, ...args.set, region };
  for (const key of SCRIPT_KEYS) delete settings[key];
  if (args.noAlarmEmail) {
    delete settings.alarmEmail;
    settings.noAlarmEmail = true;
  } else if (settings.alarmEmail !== undefined) delete settings.noAlarmEmail;

  const issuer = settings.oidcIssuer === undefined ? undefined : String(settings.oidcIssuer);
  if (!issuer || issuer === PLACEHOLDER_OIDC_ISSUER) refusals.push('No issuer: --issuer <the identity provider\'s issuer URL> (the placeholder accepts no token, and CloudFormation refuses it).');
  else if (!/^https:\/\/[^/\s]+/.test(issuer)) refusals.push(`The issuer must be an https URL, not ${issuer}.`);
  const audience = settings.oidcAudience === undefined ? undefined : String(settings.oidcAudience);
  if (!audience || audience === PLACEHOLDER_OIDC_AUDIENCE) refusals.push('No audience: --audience <the audience the tokens carry> (the placeholder is refused by CloudFormation).');
  const email = settings.alarmEmail === undefined ? undefined : String(settings.alarmEmail);
  if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) refusals.push(`The alarm e-mail ${email} is not an address.`);
  if (email === undefined && settings.noAlarmEmail !== true) {
    refusals.push('No alarm e-mail: --alarm-email <team address>, or --no-alarm-email to deploy with alarms nobody receives.');
  }

  const limit = facts.accountSettings.AccountLimit;
  const quota = limit?.ConcurrentExecutions;
  const unreserved = limit?.UnreservedConcurrentExecutions;
  if (!Number.isInteger(quota) || !Number.isInteger(unreserved)) refusals.push('The account settings name no Lambda concurrency (AccountLimit.ConcurrentExecutions and UnreservedConcurrentExecutions).');

  const app = facts.stackStatus[STACKS.app];
  const stacks = Object.values(STACKS);
  for (const name of stacks) {
    const status = facts.stackStatus[name];
    if (status && inProgressOrFailed(status) && status !== 'ROLLBACK_FAILED') refusals.push(`Stack ${name} is ${status}: wait for it, or repair it in the CloudFormation console, then deploy again.`);
    // A failed first create that could not delete what it made (the table with deletion protection on, before this script).
    if (status === 'ROLLBACK_FAILED') {
      refusals.push(`Stack ${name} is ROLLBACK_FAILED: delete what it kept (\`aws cloudformation delete-stack --stack-name ${name} --region ${name === STACKS.app ? region : EDGE_REGION}\`, turning the table's deletion protection off first if it is there), then deploy again.`);
    }
  }
  if (args.first && exists(app) && app !== 'ROLLBACK_COMPLETE' && !inProgressOrFailed(app)) {
    refusals.push(`Stack ${STACKS.app} is already deployed in ${region} (${app}): deploy with \`npm run deploy\`; --first is for a new account or region.`);
  }
  if (!args.first && !exists(app)) refusals.push(`Stack ${STACKS.app} is not deployed in ${region}: the first deploy there is \`npm run deploy -- --first\`.`);
  if (refusals.length > 0) return { refusals };

  // The stack may count on what no other function reserves: its own reservations (if deployed
  // with them) come back to it, others' do not.
  const trackingConcurrency = settings.trackingConcurrency === undefined ? undefined : Number(settings.trackingConcurrency);
  // At their full size (an account of 100 or more): below that no reservation fits anyway.
  const reservations = concurrencyReservations(trackingConcurrency, undefined, FULL_SIZE_ACCOUNT);
  const previous = Number(facts.settings?.accountConcurrency);
  const own = exists(app) && app !== 'ROLLBACK_COMPLETE' && Number.isInteger(previous) && reservationsFit(previous, reservations) ? reservations : 0;
  settings.accountConcurrency = Math.min(quota!, unreserved! + own);
  if (settings.accountConcurrency < quota!) notes.push(`Lambda concurrency: quota ${quota}, of which ${quota! - settings.accountConcurrency} reserved by other functions; the stack counts on ${settings.accountConcurrency}.`);
  // The API keeps its share of what the background can take at once (infra/capacity.ts, docs/capacity.md).
  const shards = settings.tableStreamShards === undefined ? NEW_TABLE_STREAM_SHARDS : Number(settings.tableStreamShards);
  const capacity = capacityPlan(settings.accountConcurrency, shards);
  if (!capacity.fits) {
    return {
      refusals: [
        `Lambda concurrency ${capacity.accountConcurrency} in ${region}: the background may hold ${capacity.backgroundTotal} executions at once` +
          ` (${capacity.background.map((b) => `${b.name} ${b.executions}`).join(', ')}), leaving the API ${Math.max(0, capacity.api)}, under its ${API_SHARE * 100}% (${capacity.apiFloor}).` +
          ` Ask for at least ${capacity.quotaNeeded} (Service Quotas, AWS Lambda, "Concurrent executions", ${region}; ${USUAL_QUOTA} is AWS's usual figure), then deploy again.`,
      ],
    };
  }
  if (!reservationsFit(settings.accountConcurrency, reservations)) {
    notes.push(
      `Lambda concurrency ${settings.accountConcurrency} in ${region}: below the ${reservations + 100} the reservations need, so none is made (the queues still bound the workers).` +
        ` Ask for more (Service Quotas, AWS Lambda, Concurrent executions, ${region}) and run \`npm run deploy\` once it is granted.`,
    );
  }
  if (settings.noAlarmEmail === true) notes.push('No alarm e-mail (--no-alarm-email): alarms reach nobody until alarmEmail is set.');

  const steps: Step[] = [];
  if (args.first) {
    for (const name of stacks) {
      const status = facts.stackStatus[name];
      // A failed create leaves a stack that can only be deleted; with protection off, it holds nothing.
      if (status === 'ROLLBACK_COMPLETE') {
        const where = name === STACKS.app ? region : EDGE_REGION;
        steps.push({ why: `${name} is what a failed create left (ROLLBACK_COMPLETE)`, command: ['aws', 'cloudformation', 'delete-stack', '--stack-name', name, '--region', where] });
        steps.push({ why: `wait for ${name} to go`, command: ['aws', 'cloudformation', 'wait', 'stack-delete-complete', '--stack-name', name, '--region', where] });
      }
    }
    const environments = [...new Set([region, EDGE_REGION])].map((r) => `aws://${account}/${r}`);
    if (!facts.executionPolicyExists) {
      steps.push({
        why: `create the CloudFormation execution policy the project ships (${EXECUTION_POLICY_FILE}), IAM being global`,
        command: ['aws', 'iam', 'create-policy', '--policy-name', EXECUTION_POLICY_NAME, '--policy-document', `file://${EXECUTION_POLICY_FILE}`],
      });
    }
    steps.push({
      why: `bootstrap ${environments.length === 1 ? region : `${region} and ${EDGE_REGION}`} with that policy instead of AdministratorAccess (idempotent)`,
      command: ['npx', 'cdk', 'bootstrap', '--cloudformation-execution-policies', executionPolicyArn(account), ...environments],
    });
    steps.push({
      why: 'create the stacks with the table unprotected, so a failed create removes it',
      command: ['npx', 'cdk', 'deploy', '--all', ...context, '-c', 'tableDeletionProtection=false', ...approval],
    });
    steps.push({ why: 'turn the table\'s deletion protection on (an in-place update)', command: ['npx', 'cdk', 'deploy', '--all', ...context, ...approval, '--outputs-file', 'cdk.out/deploy-outputs.json'] });
    if (email !== undefined) notes.push(`Confirm the subscription in the e-mail SNS sent to ${email}: until then no alarm reaches anyone.`);
  } else {
    // A first deploy that stopped at an edge stack (most likely the log delivery, created last)
    // left it in ROLLBACK_COMPLETE, and the API up with its table unprotected: this deploy
    // deletes the edge stack, protects the table and creates the edge stack again.
    for (const name of [STACKS.acl, STACKS.logs]) {
      if (facts.stackStatus[name] !== 'ROLLBACK_COMPLETE') continue;
      steps.push({ why: `${name} is what a failed create left (ROLLBACK_COMPLETE)`, command: ['aws', 'cloudformation', 'delete-stack', '--stack-name', name, '--region', EDGE_REGION] });
      steps.push({ why: `wait for ${name} to go`, command: ['aws', 'cloudformation', 'wait', 'stack-delete-complete', '--stack-name', name, '--region', EDGE_REGION] });
    }
    steps.push({ why: `deploy ${deployment} with its entry of deploy.settings.json (${region})`, command: ['npx', 'cdk', 'deploy', '--all', ...context, ...approval, '--outputs-file', 'cdk.out/deploy-outputs.json'] });
  }
  return { refusals: [], settings, steps, notes };
}

/**
 * The after-deploy checks of docs/cloud-stack.md, with the stack's outputs when known. Every
 * deploy gets the smoke check of the public API and where its alarms are; only the first gets the
 * origin secret's forced rotation (it replaces the value resolved at create time) and the forced
 * alarm (the e-mail subscription, confirmed once, is what it proves).
 */
export function afterDeployChecks(region: string, first: boolean, outputs: Record<string, string> = {}, STACKS: StackNames = stackNames()): string[] {
  const secret = outputs.OriginSecretArn ?? '<OriginSecretArn output>';
  const url = outputs.Url ?? '<Url output>';
  const alarms = `aws cloudwatch describe-alarms --alarm-name-prefix ${STACKS.app}- --region ${region}`;
  const alarmsSeen = [
    `${alarms} --state-value ALARM --query 'MetricAlarms[].AlarmName' --output text   # the alarms firing now: none expected`,
    `# all of them, with their history: https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#alarmsV2: (search ${STACKS.app}-); each one's change reaches the e-mail subscribed to the AlarmTopicArn output`,
  ];
  if (!first) {
    return [
      // A later deploy that replaced what the origin secret binds needs the rotation again (docs/security.md); a 403 here says so.
      `curl -i ${url}/v1/openapi.json   # 200; a 403 after a deploy that replaced the origin secret, the distribution, the web ACL or the rotation function: rotate the secret (docs/cloud-stack.md)`,
      ...alarmsSeen,
    ];
  }
  return [
    `aws secretsmanager rotate-secret --secret-id ${secret} --region ${region}`,
    `curl -i ${url}/v1/openapi.json   # 200 once the rotation is done`,
    ...alarmsSeen,
    `${alarms} --max-items 1 --query 'MetricAlarms[0].AlarmName' --output text`,
    `aws cloudwatch set-alarm-state --alarm-name <that alarm> --state-value ALARM --state-reason "first deploy check" --region ${region}`,
  ];
}
