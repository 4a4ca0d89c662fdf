import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { templateApp } from '../infra/test-app.ts';

// Run by synth-template.ts in a child process: prints the stack's template as JSON. Without
// bundling the functions' code (the policies do not depend on it, and bundling is most of a synth)
// nor CDK's built-in template validation (test-app.ts).
// A deployment with the billing provider configured, as the tests run it against the fake.
const app = templateApp({
  providerApiUrl: 'https://api.bsale.io',
  providerOauthUrl: 'https://oauth.bsale.io',
  providerAppId: 'app-id',
  providerRedirectUri: 'https://app.example.cl/provider/callback',
  providerUserTokenSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:provider-user-token-AbCdEf',
  publicBaseUrl: 'https://api.example.cl',
});
const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
process.stdout.write(JSON.stringify(Template.fromStack(stack).toJSON()));
