import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeliveryOpsStack } from '../../infra/stack.ts';

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DeletionPolicy?: string };

export interface Synthesized {
  outdir: string;
  stack: DeliveryOpsStack;
  template: Template;
  nagReport: PolicyValidationPluginReport;
  /** Resources of one CloudFormation type, as [logical id, resource]. */
  resources(type: string): [string, Resource][];
  /** Removes the cloud assembly (bundled assets included). */
  dispose(): void;
}

/**
 * One synthesis with esbuild bundling and cdk-nag, as infra/app.ts does it: the checks are made
 * with the app as scope so acknowledgements land in the template as cdk_nag metadata.
 */
export function synthesize(context: Record<string, string> = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'delivery-ops-cdk-'));
  const app = new App({ outdir, context });
  const nag = new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true });
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  const template = Template.fromStack(stack);
  const nagReport = nag.validateScope(stack);
  const all = template.toJSON().Resources as Record<string, Resource>;
  return {
    outdir,
    stack,
    template,
    nagReport,
    resources: (type) => Object.entries(all).filter(([, r]) => r.Type === type),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
