import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeploySettings } from './deploy/settings.ts';
import { DEFAULT_DEPLOYMENT, deploymentOf, stackNames } from './deployment.ts';
import { DEFAULT_ACCOUNT_CONCURRENCY, DeliveryOpsStack } from './stack.ts';

const app = new App();
// The deployment (-c deployment=NAME, decisions 20) picks its entry of deploy.settings.json,
// which is the context's base: the CLI's context (-c, cdk.json) wins over it.
const deployment = String(app.node.tryGetContext('deployment') ?? DEFAULT_DEPLOYMENT);
app.node.setContext('deployment', deployment);
for (const [key, value] of Object.entries(readDeploySettings(deployment) ?? {})) {
  if (app.node.tryGetContext(key) === undefined) app.node.setContext(key, value);
}

// The deployment's region (deploy.settings.json or -c region=...), else the profile's. The CDK CLI
// sets CDK_DEFAULT_REGION (us-east-1 when the profile names none); a synth without the CLI
// falls back the same way, so it needs no credentials. The account stays open.
const region = String(app.node.tryGetContext('region') ?? process.env.CDK_DEFAULT_REGION ?? 'us-east-1');
const accountConcurrency = Number(app.node.tryGetContext('accountConcurrency') ?? DEFAULT_ACCOUNT_CONCURRENCY);

new DeliveryOpsStack(app, stackNames(deploymentOf(app)).app, {
  env: { region, account: process.env.CDK_DEFAULT_ACCOUNT },
  accountConcurrency,
  description: `delivery-ops: multi-tenant delivery operations API (deployment ${deployment})`,
});

// cdk-nag 3 is a policy validation plugin, no longer an aspect: a finding that is not
// acknowledged with a reason fails synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));

app.synth();
