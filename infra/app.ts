import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeploySettings } from './deploy/settings.ts';
import { DEFAULT_ACCOUNT_CONCURRENCY, DeliveryOpsStack } from './stack.ts';

// deploy.settings.json is the context's base; the CLI's context (-c, cdk.json) wins over it.
const app = new App({ context: readDeploySettings() ?? {} });

// The team's region (deploy.settings.json or -c region=...), else the profile's. The CDK CLI
// sets CDK_DEFAULT_REGION (us-east-1 when the profile names none); a synth without the CLI
// falls back the same way, so it needs no credentials. The account stays open.
const region = String(app.node.tryGetContext('region') ?? process.env.CDK_DEFAULT_REGION ?? 'us-east-1');
const accountConcurrency = Number(app.node.tryGetContext('accountConcurrency') ?? DEFAULT_ACCOUNT_CONCURRENCY);

new DeliveryOpsStack(app, 'DeliveryOps', {
  env: { region, account: process.env.CDK_DEFAULT_ACCOUNT },
  accountConcurrency,
  description: 'delivery-ops: multi-tenant delivery operations API',
});

// cdk-nag 3 is a policy validation plugin, no longer an aspect: a finding that is not
// acknowledged with a reason fails synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));

app.synth();
