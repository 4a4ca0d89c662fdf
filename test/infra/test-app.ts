import { App } from 'aws-cdk-lib';

/**
 * An app as the infrastructure tests synthesize it: without bundling the functions' code (the
 * bundles are stack.test.ts's and bundles.test.ts's, made once per run by `sharedAssembly`), and
 * without CDK's built-in CloudFormation validation. That validation (a WebAssembly engine of
 * @aws/cloudformation-validate run on every synth) only warns (CDK turns its errors into warnings
 * unless a feature flag asks otherwise), no test reads it, and `cdk synth` (infra/app.ts, so the
 * shared assembly) still runs it. It was most of a test synth's CPU: about 12 s for a process's
 * first synth and 1-2 s for each later one, against 1.8 s and 0.7 s for the whole synth without it.
 */
export const templateApp = (context: Record<string, unknown> = {}): App =>
  new App({ builtinCloudFormationValidation: false, context: { ...context, 'aws:cdk:bundling-stacks': [] } });

/** The same for infra/app.ts run as a child process: CDK reads this variable at synth. */
export const NO_BUILTIN_VALIDATION_ENV = { CDK_VALIDATION: 'false' } as const;
