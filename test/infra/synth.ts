import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnElement, PolicyValidationPluginReport } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeliveryOpsStack } from '../../infra/stack.ts';

export type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DeletionPolicy?: string };

/** An IAM policy statement as the template holds it. */
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any> };

/** A statement's actions, whether the template gives one or a list. */
export const actionsOf = (s: Statement): string[] => [s.Action].flat();

export interface Synthesized {
  outdir: string;
  stack: DeliveryOpsStack;
  template: Template;
  nagReport: PolicyValidationPluginReport;
  /** Resources of one CloudFormation type, as [logical id, resource]. */
  resources(type: string): [string, Resource][];
  /** A construct's logical id in the template (its default child's, for an L2). */
  logicalId(construct: IConstruct): string;
  /** Every statement of the policies attached to the role with this logical id. */
  statementsOf(roleId: string): Statement[];
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
  const resources = (type: string): [string, Resource][] => Object.entries(all).filter(([, r]) => r.Type === type);
  return {
    outdir,
    stack,
    template,
    nagReport,
    resources,
    logicalId: (construct) => stack.resolve(stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string,
    statementsOf: (roleId) =>
      resources('AWS::IAM::Policy')
        .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]),
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
