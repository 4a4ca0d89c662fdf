import { Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Deployments (decisions 20): one account may hold several (staging, prod...), each named by
 * `-c deployment=NAME`. The name is part of every stack name, every named resource, every
 * exported parameter path (CDK's `/cdk/exports/<reading stack>/...`) and every CloudFront policy
 * name, so two deployments in one account share nothing by name. `prod` keeps the names it had
 * before deployments had names, so a stack already deployed is not replaced.
 */
export const DEFAULT_DEPLOYMENT = 'prod';

/** 1-20 of a-z, 0-9 and `-` (decisions 20). */
export const DEPLOYMENT_NAME = /^[a-z0-9-]{1,20}$/;

export class DeploymentNameError extends Error {
  readonly code = 'deployment_name_invalid';
}

export const checkDeploymentName = (name: string): string => {
  if (!DEPLOYMENT_NAME.test(name)) throw new DeploymentNameError(`deployment must be 1-20 of a-z, 0-9 and - (not ${JSON.stringify(name)})`);
  return name;
};

export interface StackNames {
  /** us-east-1: the CloudFront web ACL, deployed first. */
  acl: string;
  /** The API's stack, in the deployment's region. */
  app: string;
  /** us-east-1: the access-log delivery, deployed last. */
  logs: string;
}

/**
 * The three stacks of a deployment. A stack name starts with a letter, so the deployment (which
 * may start with a digit) follows `DeliveryOps-`; the edge stacks' suffixes are capitalised, which
 * no deployment name is, so no deployment's stack is another's.
 */
export const stackNames = (deployment = DEFAULT_DEPLOYMENT): StackNames => {
  checkDeploymentName(deployment);
  const app = deployment === DEFAULT_DEPLOYMENT ? 'DeliveryOps' : `DeliveryOps-${deployment}`;
  const edge = deployment === DEFAULT_DEPLOYMENT ? app : `${app}-`;
  return { acl: `${edge}Edge`, app, logs: `${edge}EdgeLogs` };
};

/** The deployment a construct belongs to: its stack's `deployment` context, else prod. */
export const deploymentOf = (scope: IConstruct): string => checkDeploymentName(String(scope.node.tryGetContext('deployment') ?? DEFAULT_DEPLOYMENT));

/**
 * The physical name of a resource whose name AWS holds once per account (CloudFront's) or once per
 * region: undefined for prod (CDK's name, as before), else `<app stack>-<region>-<purpose>`
 * (`<app stack>-<purpose>` with region '', for a name with little room, such as a log delivery
 * source's 60). CDK's own names carry the construct path without its hyphens; this one reads as
 * the deployment.
 */
export const deployedName = (scope: IConstruct, purpose: string, region: string = Stack.of(scope).region): string | undefined => {
  const deployment = deploymentOf(scope);
  return deployment === DEFAULT_DEPLOYMENT ? undefined : [stackNames(deployment).app, region, purpose].filter(Boolean).join('-');
};
