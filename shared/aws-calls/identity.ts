import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which deployed function a piece of code runs as. In the cloud every function is its own
 * process with its own role; locally all handlers share one process, so the local invokers
 * (gateway, stream reader, queue and schedule stand-ins) say whom they invoke, and every AWS
 * call made below that point is recorded against that function's role.
 */
const current = new AsyncLocalStorage<string>();

/**
 * Not a function: a person or a test fixture with their own credentials (`npm run admin`, seed
 * data). Its calls are counted but checked against no role.
 */
export const OPERATOR = 'operator';

/** Runs `work` as the function `name` (the name its CDK function carries, see ServiceFunction). */
export const runAs = <T>(name: string, work: () => T): T => current.run(name, work);

/** Wraps a handler so each invocation runs as the function `name`. */
export const invokedAs =
  <A extends unknown[], R>(name: string, handler: (...args: A) => R) =>
  (...args: A): R =>
    current.run(name, () => handler(...args));

/** Undefined outside any invocation: such a call fails the IAM check. */
export const currentFunction = (): string | undefined => current.getStore();
