/**
 * Whom an AWS call is recorded against: the running function (shared/runtime/current-function.ts,
 * re-exported here for the local invokers and tests that set it), or OPERATOR. A call made outside
 * any invocation is recorded with no function and fails the IAM check.
 */
export { currentFunction, invokedAs, runAs } from '../runtime/current-function.ts';

/**
 * Not a function: a person or a test fixture with their own credentials (`npm run admin`, seed
 * data). Its calls are counted but checked against no role.
 */
export const OPERATOR = 'operator';
