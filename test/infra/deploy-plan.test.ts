import { describe, expect, it } from 'vitest';
import { STACKS, afterDeployChecks, parseDeployArgs, planDeploy, resolveRegion, type DeployFacts } from '../../infra/deploy/plan.ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDeploySettings, readDeployments, writeDeploySettings, type DeploySettings } from '../../infra/deploy/settings.ts';
import { PLACEHOLDER_OIDC_ISSUER } from '../../infra/stack.ts';

/**
 * `npm run deploy` decided offline: the account's `aws lambda get-account-settings`, the stacks'
 * states and deploy.settings.json in, the settings to keep and the commands (or refusals) out.
 */
const newAccount = { AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 10 } };
const hundred = { AccountLimit: { ConcurrentExecutions: 100, UnreservedConcurrentExecutions: 100 } };
const raised = { AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } };
const policy = 'arn:aws:iam::123456789012:policy/DeliveryOpsCloudFormationExecution';
const firstFlags = ['--first', '--region', 'sa-east-1', '--issuer', 'https://login.example.cl/', '--audience', 'delivery-ops', '--alarm-email', 'ops@example.cl'];

const plan = (argv: string[], facts: Partial<DeployFacts> = {}) =>
  planDeploy({ args: parseDeployArgs(argv), account: '123456789012', region: 'sa-east-1', accountSettings: raised, stackStatus: {}, ...facts });
const commands = (p: ReturnType<typeof plan>) => ('steps' in p ? p.steps.map((s) => s.command.join(' ')) : []);
const settingsOf = (p: ReturnType<typeof plan>): DeploySettings => {
  expect(p.refusals).toEqual([]);
  return (p as { settings: DeploySettings }).settings;
};

describe('the first deploy', () => {
  it('creates the shipped execution policy, bootstraps both regions with it, creates with the table unprotected, then protects it', () => {
    const p = plan(firstFlags);
    expect(commands(p)).toEqual([
      'aws iam create-policy --policy-name DeliveryOpsCloudFormationExecution --policy-document file://infra/deploy/cloudformation-execution-policy.json',
      `npx cdk bootstrap --cloudformation-execution-policies ${policy} aws://123456789012/sa-east-1 aws://123456789012/us-east-1`,
      'npx cdk deploy --all -c deployment=prod -c tableDeletionProtection=false',
      'npx cdk deploy --all -c deployment=prod --outputs-file cdk.out/deploy-outputs.json',
    ]);
    expect(settingsOf(p)).toEqual({ region: 'sa-east-1', oidcIssuer: 'https://login.example.cl/', oidcAudience: 'delivery-ops', alarmEmail: 'ops@example.cl', accountConcurrency: 1000 });
  });

  it('bootstraps one environment when the API is in us-east-1 too, and does not create the policy twice', () => {
    expect(commands(plan(firstFlags, { region: 'us-east-1', executionPolicyExists: true }))[0]).toBe(`npx cdk bootstrap --cloudformation-execution-policies ${policy} aws://123456789012/us-east-1`);
  });

  it('skips cdk’s approval prompts only when told --yes, and refuses without a terminal to answer them', () => {
    const ci = commands(plan([...firstFlags, '--yes'], { interactive: false }));
    expect(ci.filter((c) => c.startsWith('npx cdk deploy'))).toEqual([
      'npx cdk deploy --all -c deployment=prod -c tableDeletionProtection=false --require-approval never',
      'npx cdk deploy --all -c deployment=prod --require-approval never --outputs-file cdk.out/deploy-outputs.json',
    ]);
    expect(commands(plan(firstFlags)).join('\n')).not.toContain('--require-approval');
    expect(plan(firstFlags, { interactive: false }).refusals).toEqual([expect.stringMatching(/No terminal.*--yes/)]);
  });

  it('refuses a 10-execution account, naming the quota to ask for, since the background alone could take it all', () => {
    const p = plan(firstFlags, { accountSettings: newAccount });
    expect(p.refusals).toEqual([expect.stringMatching(/Lambda concurrency 10 in sa-east-1: the background may hold 19 executions at once .*Ask for at least 54 \(Service Quotas, AWS Lambda, "Concurrent executions", sa-east-1/)]);
    expect(commands(p)).toEqual([]);
    // A grown table's stream has more shards: each stream consumer takes one more execution per shard.
    expect(plan([...firstFlags, '-c', 'tableStreamShards=8'], { accountSettings: newAccount }).refusals[0]).toMatch(/background may hold 27 .*at least 88/);
  });

  it('writes the real quota, less what other functions reserve, and says when reservations must wait', () => {
    const small = plan(firstFlags, { accountSettings: hundred });
    expect(settingsOf(small).accountConcurrency).toBe(100);
    expect('notes' in small && small.notes.join('\n')).toMatch(/below the 177 the reservations need, so none is made/);
    const granted = plan(firstFlags, { accountSettings: raised });
    expect(settingsOf(granted).accountConcurrency).toBe(1000);
    expect('notes' in granted && granted.notes.join('\n')).not.toMatch(/reservations need/);
    // 300 of the 1000 held by another application's functions: the stack may count on 700.
    const shared = plan(firstFlags, { accountSettings: { AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 700 } } });
    expect(settingsOf(shared).accountConcurrency).toBe(700);
  });

  it('refuses the placeholder issuer, a missing audience and a missing alarm e-mail, and runs nothing', () => {
    const p = plan(['--first', '--issuer', PLACEHOLDER_OIDC_ISSUER]);
    expect(p.refusals).toEqual([expect.stringMatching(/^No issuer/), expect.stringMatching(/^No audience/), expect.stringMatching(/^No alarm e-mail/)]);
    expect(commands(p)).toEqual([]);
    expect(plan(['--first', '--issuer', 'http://login.example.cl/', '--audience', 'a', '--alarm-email', 'ops@example.cl']).refusals).toEqual([expect.stringMatching(/https URL/)]);
    expect(plan(['--first', '--issuer', 'https://login.example.cl/', '--audience', 'a', '--alarm-email', 'ops']).refusals).toEqual([expect.stringMatching(/not an address/)]);
  });

  it('deploys without an alarm e-mail only when told to, and keeps that choice', () => {
    const p = plan(['--first', '--issuer', 'https://login.example.cl/', '--audience', 'delivery-ops', '--no-alarm-email']);
    expect(settingsOf(p)).toMatchObject({ noAlarmEmail: true });
    expect(settingsOf(p).alarmEmail).toBeUndefined();
    expect('notes' in p && p.notes.join('\n')).toMatch(/alarms reach nobody/);
  });

  it('deletes what a failed create left, then creates again', () => {
    const p = plan(firstFlags, { stackStatus: { [STACKS.app]: 'ROLLBACK_COMPLETE', [STACKS.acl]: 'CREATE_COMPLETE' } });
    expect(commands(p).slice(0, 3)).toEqual([
      'aws cloudformation delete-stack --stack-name DeliveryOps --region sa-east-1',
      'aws cloudformation wait stack-delete-complete --stack-name DeliveryOps --region sa-east-1',
      expect.stringMatching(/^aws iam create-policy /),
    ]);
  });

  it('refuses a region where the stack is already deployed, and a stack stuck in ROLLBACK_FAILED', () => {
    expect(plan(firstFlags, { stackStatus: { [STACKS.app]: 'UPDATE_COMPLETE' } }).refusals).toEqual([expect.stringMatching(/already deployed in sa-east-1.*npm run deploy/)]);
    const stuck = plan(firstFlags, { stackStatus: { [STACKS.app]: 'ROLLBACK_FAILED' } });
    expect(stuck.refusals).toEqual([expect.stringContaining('aws cloudformation delete-stack --stack-name DeliveryOps --region sa-east-1')]);
  });

  it('refuses to take tableDeletionProtection as a setting', () => {
    expect(plan([...firstFlags, '-c', 'tableDeletionProtection=false']).refusals).toEqual([expect.stringMatching(/^tableDeletionProtection is not a setting/)]);
  });
});

describe('a later deploy', () => {
  const kept: DeploySettings = { region: 'sa-east-1', oidcIssuer: 'https://login.example.cl/', oidcAudience: 'delivery-ops', alarmEmail: 'ops@example.cl', accountConcurrency: 1000, rateLimitPerIp: 300 };
  const deployed = { [STACKS.app]: 'CREATE_COMPLETE' };

  it('repeats every kept setting with no flag, in one deploy with protection on', () => {
    const p = plan([], { settings: kept, stackStatus: deployed });
    expect(commands(p)).toEqual(['npx cdk deploy --all -c deployment=prod --outputs-file cdk.out/deploy-outputs.json']);
    expect(settingsOf(p)).toEqual(kept);
  });

  it('keeps a changed or added setting for the deploys after it', () => {
    const p = plan(['-c', 'publicBaseUrl=https://api.example.cl', '--alarm-email', 'noc@example.cl'], { settings: kept, stackStatus: deployed });
    expect(settingsOf(p)).toEqual({ ...kept, publicBaseUrl: 'https://api.example.cl', alarmEmail: 'noc@example.cl' });
  });

  it('reads the raised quota, and counts its own reservations as its own', () => {
    expect(settingsOf(plan([], { settings: { ...kept, accountConcurrency: 100 }, stackStatus: deployed, accountSettings: raised })).accountConcurrency).toBe(1000);
    // Deployed with 1000: its 77 reserved are not another application's.
    const withReservations = { AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 923 } };
    expect(settingsOf(plan([], { settings: { ...kept, accountConcurrency: 1000 }, stackStatus: deployed, accountSettings: withReservations })).accountConcurrency).toBe(1000);
  });

  it('after a first deploy that stopped at the log delivery: deletes that stack, then deploys with the table protected', () => {
    const p = plan([], { settings: kept, stackStatus: { ...deployed, [STACKS.acl]: 'CREATE_COMPLETE', [STACKS.logs]: 'ROLLBACK_COMPLETE' } });
    expect(commands(p)).toEqual([
      'aws cloudformation delete-stack --stack-name DeliveryOpsEdgeLogs --region us-east-1',
      'aws cloudformation wait stack-delete-complete --stack-name DeliveryOpsEdgeLogs --region us-east-1',
      'npx cdk deploy --all -c deployment=prod --outputs-file cdk.out/deploy-outputs.json',
    ]);
  });

  it('refuses without a settings file, or where nothing is deployed yet', () => {
    expect(plan([], { stackStatus: deployed }).refusals).toEqual([expect.stringMatching(/No entry for deployment prod in deploy.settings.json.*--first --deployment prod/)]);
    expect(plan([], { settings: kept }).refusals).toEqual([expect.stringMatching(/not deployed in sa-east-1.*--first/)]);
  });
});

describe('several deployments (decisions 20)', () => {
  const staging = ['--deployment', 'staging', ...firstFlags];

  it('deploys another deployment’s stacks, with its name, beside prod', () => {
    const p = plan(staging, { stackStatus: { [STACKS.app]: 'UPDATE_COMPLETE' } });
    expect(commands(p).filter((c) => c.startsWith('npx cdk deploy'))).toEqual([
      'npx cdk deploy --all -c deployment=staging -c tableDeletionProtection=false',
      'npx cdk deploy --all -c deployment=staging --outputs-file cdk.out/deploy-outputs.json',
    ]);
    // -c deployment=NAME says the same; it is a choice of entry, not a setting to keep.
    expect(settingsOf(plan(['-c', 'deployment=staging', ...firstFlags]))).not.toHaveProperty('deployment');
  });

  it('checks its own stacks: a failed staging create is deleted under its own name', () => {
    const p = plan(staging, { stackStatus: { 'DeliveryOps-staging': 'ROLLBACK_COMPLETE' } });
    expect(commands(p)[0]).toBe('aws cloudformation delete-stack --stack-name DeliveryOps-staging --region sa-east-1');
  });

  it('refuses to move a deployment to another region, before writing anything', () => {
    const p = plan(['--region', 'us-east-2'], { region: 'us-east-2', settings: { region: 'sa-east-1', oidcIssuer: 'https://login.example.cl/', oidcAudience: 'a', alarmEmail: 'ops@example.cl' }, stackStatus: { [STACKS.app]: 'CREATE_COMPLETE' } });
    expect(p.refusals).toContainEqual(expect.stringMatching(/Deployment prod is in sa-east-1, not us-east-2.*--deployment/));
  });

  it('refuses a deployment name outside 1-20 of a-z, 0-9 and -', () => {
    for (const name of ['Staging', 'x'.repeat(21), 'a_b']) expect(() => parseDeployArgs(['--deployment', name]), name).toThrow(/1-20 of a-z/);
  });
});

describe('deploy.settings.json', () => {
  it('keeps one entry per deployment: writing one keeps the others', () => {
    const dir = mkdtempSync(join(tmpdir(), 'delivery-ops-settings-'));
    try {
      const file = join(dir, 'deploy.settings.json');
      writeDeploySettings('prod', { region: 'sa-east-1', alarmEmail: 'ops@example.cl' }, file);
      writeDeploySettings('staging', { region: 'us-east-1', alarmEmail: 'qa@example.cl' }, file);
      writeDeploySettings('prod', { region: 'sa-east-1', alarmEmail: 'noc@example.cl' }, file);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ prod: { alarmEmail: 'noc@example.cl', region: 'sa-east-1' }, staging: { alarmEmail: 'qa@example.cl', region: 'us-east-1' } });
      expect(readDeploySettings('staging', file)).toEqual({ alarmEmail: 'qa@example.cl', region: 'us-east-1' });
      expect(readDeploySettings('dev', file)).toBeUndefined();
      // The older form, one object of settings, is prod's entry.
      writeFileSync(file, JSON.stringify({ region: 'sa-east-1', accountConcurrency: 1000 }));
      expect(readDeployments(file)).toEqual({ prod: { region: 'sa-east-1', accountConcurrency: 1000 } });
      writeFileSync(file, JSON.stringify({ Prod: { region: 'sa-east-1' } }));
      expect(() => readDeployments(file)).toThrow(/1-20 of a-z/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the checks printed after a deploy', () => {
  const outputs = { Url: 'https://d111.cloudfront.net', OriginSecretArn: 'arn:aws:secretsmanager:sa-east-1:123456789012:secret:Origin-1' };
  const smoke = 'curl -i https://d111.cloudfront.net/v1/openapi.json';
  const firing = "aws cloudwatch describe-alarms --alarm-name-prefix DeliveryOps- --region sa-east-1 --state-value ALARM";

  it('after every deploy: the public API answers its OpenAPI document, and where the alarms are', () => {
    const later = afterDeployChecks('sa-east-1', false, outputs);
    expect(later[0]).toMatch(new RegExp(`^${smoke} +# 200`));
    expect(later.some((c) => c.startsWith(firing))).toBe(true);
    expect(later.join('\n')).toContain('https://sa-east-1.console.aws.amazon.com/cloudwatch/home?region=sa-east-1#alarmsV2:');
    // Nothing that forces an alarm or rotates the secret on a routine deploy.
    expect(later.join('\n')).not.toMatch(/rotate-secret|set-alarm-state/);
  });

  it('after the first: the origin secret rotated before the smoke check, and an alarm forced to reach the e-mail', () => {
    const first = afterDeployChecks('sa-east-1', true, outputs);
    expect(first[0]).toBe(`aws secretsmanager rotate-secret --secret-id ${outputs.OriginSecretArn} --region sa-east-1`);
    expect(first[1]).toMatch(new RegExp(`^${smoke} +# 200 once the rotation is done`));
    expect(first.some((c) => c.startsWith(firing))).toBe(true);
    expect(first.at(-1)).toMatch(/^aws cloudwatch set-alarm-state --alarm-name <that alarm> --state-value ALARM .*--region sa-east-1$/);
  });

  it('names the outputs to read when the outputs file is missing', () => {
    expect(afterDeployChecks('sa-east-1', true)[0]).toContain('<OriginSecretArn output>');
    expect(afterDeployChecks('sa-east-1', false)[0]).toContain('curl -i <Url output>/v1/openapi.json');
  });
});

describe('flags and region', () => {
  it('takes --region, else the settings file, else the profile', () => {
    const none = parseDeployArgs([]);
    expect(resolveRegion(parseDeployArgs(['--region', 'eu-west-1']), { region: 'sa-east-1' }, 'us-east-1')).toBe('eu-west-1');
    expect(resolveRegion(none, { region: 'sa-east-1' }, 'us-east-1')).toBe('sa-east-1');
    expect(resolveRegion(none, undefined, 'us-east-2\n')).toBe('us-east-2');
    expect(resolveRegion(none, undefined, '')).toBeUndefined();
  });

  it('refuses an unknown flag and a flag without its value', () => {
    expect(() => parseDeployArgs(['--frist'])).toThrow(/unknown flag --frist/);
    expect(() => parseDeployArgs(['--region'])).toThrow(/--region needs a value/);
    expect(() => parseDeployArgs(['-c', 'novalue'])).toThrow(/key=value/);
  });
});
