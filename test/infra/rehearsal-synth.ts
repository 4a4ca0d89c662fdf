import { Template } from 'aws-cdk-lib/assertions';
import { stackNames } from '../../infra/deployment.ts';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import type { SynthesizedStack, Template as Json } from './rehearsal.ts';
import { templateApp } from './test-app.ts';

/**
 * The three stacks of one deployment as `cdk synth` makes them (without bundling: the functions'
 * code plays no part in names and order), in the order `cdk deploy --all` deploys them.
 */
export const synthDeployment = (deployment: string, region: string, context: Record<string, unknown> = {}): { stack: DeliveryOpsStack; stacks: SynthesizedStack[] } => {
  const app = templateApp({ deployment, ...context });
  const stack = new DeliveryOpsStack(app, stackNames(deployment).app, { env: { region } });
  const order = app.synth().stacksRecursively.map((s) => s.stackName);
  const stacks = [stack, stack.edgeAcl, stack.edgeLogs]
    .map((s) => ({ name: s.stackName, region: s.region, template: Template.fromStack(s).toJSON() as Json }))
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  return { stack, stacks };
};
