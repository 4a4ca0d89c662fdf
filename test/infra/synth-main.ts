import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { templateApp } from './test-app.ts';

// Run by sharedSynth (synth.ts) in a child process: prints, for each context of the JSON list in
// argv[2], the template and the cdk-nag report of the stack synthesized with it, as infra/app.ts
// makes them but without bundling the functions' code (the bundles are checked by stack.test.ts and
// bundles.test.ts; the template's other resources, policies and nag findings do not depend on it).
const contexts = JSON.parse(process.argv[2] ?? '[{}]') as Record<string, string>[];
const results = contexts.map((context) => {
  const app = templateApp(context);
  const nag = new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true });
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  const template = Template.fromStack(stack).toJSON();
  // The two us-east-1 stacks made beside it (the web ACL, the access-log delivery), and one nag report for the three.
  const edgeTemplates = [stack.edgeAcl, stack.edgeLogs].map((s) => Template.fromStack(s).toJSON());
  const reports = [stack, stack.edgeAcl, stack.edgeLogs].map((s) => nag.validateScope(s));
  const nagReport = { ...reports[0]!, success: reports.every((r) => r.success), violations: reports.flatMap((r) => r.violations) };
  return { template, edgeTemplates, nagReport };
});
process.stdout.write(JSON.stringify(results));
