import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeliveryOpsStack } from './stack.ts';

const app = new App();

new DeliveryOpsStack(app, 'DeliveryOps', {
  // The region is fixed because the WAF web ACL of the CloudFront distribution must live in
  // us-east-1; the account stays open, so synth needs no credentials.
  env: { region: 'us-east-1', account: process.env.CDK_DEFAULT_ACCOUNT },
  description: 'delivery-ops: multi-tenant delivery operations API',
});

// cdk-nag 3 is a policy validation plugin, no longer an aspect: a finding that is not
// acknowledged with a reason fails synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));

app.synth();
