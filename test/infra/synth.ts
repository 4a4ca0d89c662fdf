import type { CfnElement, PolicyValidationPluginReport } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import { DeliveryOpsStack } from '../../infra/stack.ts';
import { sharedDir, templateAndReport } from './synth-shared.ts';
import { templateApp } from './test-app.ts';

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
  /** The same in the two us-east-1 stacks beside it (stack.edgeAcl: the web ACL; stack.edgeLogs: the access-log delivery). */
  edgeResources(type: string): [string, Resource][];
  /** A construct's logical id in the template (its default child's, for an L2). */
  logicalId(construct: IConstruct): string;
  /** Every statement of the policies attached to the role with this logical id. */
  statementsOf(roleId: string): Statement[];
  /** Removes the cloud assembly (bundled assets included). */
  dispose(): void;
}

const edgeResourcesOf =
  (templates: Record<string, any>[]) =>
  (type: string): [string, Resource][] =>
    templates.flatMap((t) => Object.entries(t.Resources as Record<string, Resource>).filter(([, r]) => r.Type === type));

export { PROVIDER_CONTEXT, sharedAssembly, sharedTemplate } from './synth-shared.ts';

/**
 * One synthesis with cdk-nag, shared by the files of a run: the template and the cdk-nag report come from one
 * synthesis per context, made in a child process (without bundling: the bundles are stack.test.ts's
 * and bundles.test.ts's), and the construct tree to name resources by is built here, also without
 * bundling. The construct tree is the same as the child's, so are the logical ids.
 */
export async function sharedSynth(context: Record<string, string> = {}): Promise<Synthesized> {
  const app = templateApp(context);
  const stack = new DeliveryOpsStack(app, 'DeliveryOps', { env: { region: 'us-east-1' } });
  const { template: json, edgeTemplates, nagReport } = await templateAndReport(context);
  const template = Template.fromJSON(json);
  const all = json.Resources as Record<string, Resource>;
  const resources = (type: string): [string, Resource][] => Object.entries(all).filter(([, r]) => r.Type === type);
  return {
    outdir: sharedDir(),
    stack,
    template,
    nagReport,
    resources,
    edgeResources: edgeResourcesOf(edgeTemplates),
    logicalId: (construct) => stack.resolve(stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string,
    statementsOf: (roleId) =>
      resources('AWS::IAM::Policy')
        .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]),
    // The shared folder is the run's; the global setup's teardown removes it.
    dispose: () => undefined,
  };
}
