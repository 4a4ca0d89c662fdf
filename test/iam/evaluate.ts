import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { OPERATOR } from '../../shared/aws-calls/identity.ts';
import type { RecordedCall } from '../../shared/aws-calls/recorder.ts';
import { deployedFunctions, type DeployedFunction, type PolicyDocument, type ResolvedCall } from './deployed-functions.ts';
import { ACCOUNT, kmsKeyArn, queueArnOfUrl, scheduleArn, tableArn, type Template, type TemplateNames } from './template-names.ts';

export interface Finding {
  fn: string;
  action: string;
  resource: string;
  detail: string;
}

export interface IamReport {
  /** Recorded calls, operator calls included. */
  calls: number;
  /** Distinct calls simulated (function, action, resource, context), Lambda's own uses included. */
  simulated: number;
  operatorCalls: number;
  /** Functions with at least one recorded call. */
  functions: string[];
  denied: Finding[];
  /** Granted (action, resource) pairs that no call of the function used. */
  unused: Finding[];
  /** Calls that could not be checked: no identity, a function the stack lacks, a setting it does not set. */
  problems: string[];
}

const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const glob = (pattern: string): RegExp => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');

/** The ARN a recorded resource has in the cloud: its setting's value in the function's environment. */
const resourceArn = (call: RecordedCall, fn: DeployedFunction): string => {
  const r = call.resource;
  let value = r.name;
  if (r.setting) {
    value = fn.environment[r.setting];
    if (value === undefined) throw new Error(`${fn.name} reads ${r.setting} for ${call.action}, but its deployment does not set it`);
  }
  if (value === undefined) throw new Error(`${call.action}: the recorded resource names neither a setting nor a name`);
  switch (r.kind) {
    case 'dynamodb-table':
      return r.index ? `${tableArn(value)}/index/${r.index}` : tableArn(value);
    case 'sqs-queue':
      return value.startsWith('arn:') ? value : queueArnOfUrl(value);
    case 'kms-key':
      return kmsKeyArn(value);
    case 'scheduler-schedule':
      return scheduleArn(value, r.schedule ?? '*');
    case 'iam-role':
    case 'secret':
      return value;
  }
};

/** Resource policies that also decide: the key policy of a KMS key, the queue policy of a queue. */
const resourcePolicyOf = (template: Template, names: TemplateNames, arn: string): PolicyDocument | undefined => {
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type === 'AWS::KMS::Key' && names.getAtt(id, 'Arn') === arn) return names.resolve(r.Properties.KeyPolicy);
    if (r.Type === 'AWS::SQS::QueuePolicy' && list(r.Properties.Queues).some((q) => queueArnOfUrl(names.resolve(q)) === arn)) return names.resolve(r.Properties.PolicyDocument);
  }
  return undefined;
};

const mentions = (fn: DeployedFunction, key: string): boolean => fn.policies.some((p) => JSON.stringify(p.policy).includes(key));

const simulate = async (template: Template, names: TemplateNames, fn: DeployedFunction, call: ResolvedCall): Promise<string | undefined> => {
  // aws:PrincipalArn is on every request AWS authorizes (a role session's is its role's ARN); the
  // simulator does not derive it, and the signing-secrets key policy names its users by it.
  const context: Record<string, string | string[]> = { 'aws:SecureTransport': 'true', 'aws:PrincipalArn': fn.roleArn };
  for (const [key, value] of Object.entries(call.context)) {
    // Leading keys are sent only where a policy looks at them: they carry item keys, which would make every call distinct.
    if (key === 'dynamodb:LeadingKeys' && !mentions(fn, key)) continue;
    context[key] = value;
  }
  const simulation: Simulation = {
    request: { principal: fn.principal, action: call.action, resource: { resource: call.resource, accountId: ACCOUNT }, contextVariables: context },
    identityPolicies: fn.policies,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    resourcePolicy: resourcePolicyOf(template, names, call.resource),
  };
  // runSimulation validates the request (action, resource type, policies) but drops context keys
  // with a variable part after a colon, such as `kms:EncryptionContext:tenantId` (0.1.173), which
  // would deny every call under the key policy's context conditions. The decision is therefore
  // taken by runUnsafeSimulation, with the context as KMS sets it, once the request is valid.
  const validated = await runSimulation(simulation, {});
  if (validated.resultType === 'error') return `simulation error: ${JSON.stringify(validated.errors)}`;
  // The unsafe path loads a resource policy without a name and then reads it; a pre-validated
  // policy (iam-policy's ValidatedPolicy shape) carries one.
  const resourcePolicy = simulation.resourcePolicy && { __validated: true, policyDocument: simulation.resourcePolicy, metadata: { name: 'resource-policy' }, errors: [] };
  const result = runUnsafeSimulation({ ...simulation, resourcePolicy }, {});
  return result === 'Allowed' ? undefined : result;
};

/** Evaluates each recorded call against the role `cdk synth` gives its function, and finds grants nothing used. */
export const checkCalls = async (template: Template, recorded: RecordedCall[]): Promise<IamReport> => {
  const { functions, unnamed, names } = deployedFunctions(template);
  const problems = unnamed.map((id) => `${id}: a Lambda without a manifest name (make it with ServiceFunction)`);
  const resolved = new Map<string, ResolvedCall>();
  const add = (call: ResolvedCall) => resolved.set(JSON.stringify([call.fn, call.action, call.resource, call.context]), call);
  let operatorCalls = 0;
  const seenProblems = new Set<string>();
  const problem = (text: string) => {
    if (!seenProblems.has(text)) problems.push(text);
    seenProblems.add(text);
  };
  for (const call of recorded) {
    if (call.fn === OPERATOR) {
      operatorCalls++;
      continue;
    }
    if (!call.fn) {
      problem(`${call.action} on ${JSON.stringify(call.resource)} ran as no function: the code that invoked it must say which (runAs / invokedAs)${call.origin ? `, ${call.origin}` : ''}`);
      continue;
    }
    const fn = functions.get(call.fn);
    if (!fn) {
      problem(`${call.fn} made ${call.action}, but the stack has no function of that name`);
      continue;
    }
    try {
      add({ fn: fn.name, action: call.action, resource: resourceArn(call, fn), context: call.context ?? {} });
    } catch (error) {
      problem((error as Error).message);
    }
  }
  for (const fn of functions.values()) for (const call of fn.platformCalls) add(call);

  const denied: Finding[] = [];
  const allowed: ResolvedCall[] = [];
  for (const call of resolved.values()) {
    const fn = functions.get(call.fn)!;
    const refusal = await simulate(template, names, fn, call);
    if (refusal) denied.push({ fn: call.fn, action: call.action, resource: call.resource, detail: `${refusal}${Object.keys(call.context).length ? ` with ${JSON.stringify(call.context)}` : ''}` });
    else allowed.push(call);
  }

  const unused: Finding[] = [];
  for (const fn of functions.values()) {
    const calls = allowed.filter((c) => c.fn === fn.name);
    for (const { name, policy } of fn.policies) {
      for (const statement of policy.Statement) {
        if (statement.Effect !== 'Allow') continue;
        if (statement.NotAction || statement.NotResource) {
          problems.push(`${fn.name} (${name}): NotAction/NotResource grants cannot be checked for use`);
          continue;
        }
        // A statement with a condition is used only by a call it allows itself (its condition
        // met): a call another statement allowed does not make it needed.
        const alone = { ...fn, policies: [{ name, policy: { Version: policy.Version, Statement: [statement] } }] };
        for (const action of list(statement.Action)) {
          for (const resource of list(statement.Resource)) {
            const matching = calls.filter((c) => glob(action).test(c.action) && glob(resource).test(c.resource));
            let used = !statement.Condition && matching.length > 0;
            for (const call of statement.Condition ? matching : []) {
              if ((used = (await simulate(template, names, alone, call)) === undefined)) break;
            }
            if (!used) unused.push({ fn: fn.name, action, resource, detail: statement.Condition ? `when ${JSON.stringify(statement.Condition)}` : '' });
          }
        }
      }
    }
  }
  return {
    calls: recorded.length,
    simulated: resolved.size,
    operatorCalls,
    functions: [...new Set(recorded.map((c) => c.fn).filter((f): f is string => !!f && f !== OPERATOR))].sort(),
    denied,
    unused,
    problems,
  };
};

export const formatFinding = (f: Finding): string => `${f.fn}: ${f.action} on ${f.resource}${f.detail ? ` (${f.detail})` : ''}`;

export const summary = (report: IamReport): string =>
  [
    `IAM check: ${report.calls} recorded AWS calls (${report.operatorCalls} by the operator/fixtures), ${report.simulated} distinct calls simulated,`,
    `  functions: ${report.functions.join(', ')}`,
    `  denied: ${report.denied.length}, unused grants: ${report.unused.length}, unchecked: ${report.problems.length}`,
    ...report.denied.map((f) => `  DENIED ${formatFinding(f)}`),
    ...report.unused.map((f) => `  UNUSED ${formatFinding(f)}`),
    ...report.problems.map((p) => `  UNCHECKED ${p}`),
  ].join('\n');
