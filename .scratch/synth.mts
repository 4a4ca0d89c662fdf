import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack } from '../infra/stack.ts';
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
const t = Template.fromStack(stack).toJSON();
import * as fs from "node:fs";
fs.writeFileSync('/tmp/template.json', JSON.stringify(t, null, 1));
