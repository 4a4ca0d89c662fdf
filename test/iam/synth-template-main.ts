import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack } from '../../infra/stack.ts';

// Run by synth-template.ts in a child process: prints the stack's template as JSON. Without
// bundling the functions' code: the policies do not depend on it, and bundling is most of a synth.
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
process.stdout.write(JSON.stringify(Template.fromStack(stack).toJSON()));
