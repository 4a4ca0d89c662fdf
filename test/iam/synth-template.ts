import { App } from 'aws-cdk-lib';
import { Template as Assertions } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack, type DeliveryOpsStackProps } from '../../infra/stack.ts';
import type { Template } from './template-names.ts';

/**
 * The stack's template as `cdk synth` makes it, without bundling the functions' code (the
 * policies do not depend on it, and bundling is most of the time a synth takes).
 */
export const synthTemplate = (props: DeliveryOpsStackProps = {}): Template => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' }, ...props });
  return Assertions.fromStack(stack).toJSON() as Template;
};
