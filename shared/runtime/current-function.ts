import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which deployed function a piece of code runs as. In the cloud every function is its own
 * process with its own role and its own module state; locally all handlers share one process, so
 * the local invokers (gateway, stream reader, queue and schedule stand-ins) say whom they invoke.
 * The AWS-call recording (shared/aws-calls) checks calls against that function's role; product
 * code that keeps per-process state (sealed-secret's data-key cache) keys it by the function too.
 */
const current = new AsyncLocalStorage<string>();

/** Runs `work` as the function `name` (the name its CDK function carries, see ServiceFunction). */
export const runAs = <T>(name: string, work: () => T): T => current.run(name, work);

/** Wraps a handler so each invocation runs as the function `name`. */
export const invokedAs =
  <A extends unknown[], R>(name: string, handler: (...args: A) => R) =>
  (...args: A): R =>
    current.run(name, () => handler(...args));

/** Undefined outside any invocation (a script, a unit test). */
export const currentFunction = (): string | undefined => current.getStore();
