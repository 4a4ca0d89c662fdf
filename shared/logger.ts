import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

const build = (): Logger => new Logger({ serviceName: config.serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
let current = build();

/**
 * One structured logger per process. Request and tenant ids are appended per request by the
 * middleware chain; headers and bodies are never logged, so tokens and secrets cannot leak.
 *
 * A Lambda reads LOG_LEVEL once, when its container starts, and Powertools puts the level back to
 * that one at each invocation. The local stack runs many stacks in turn in one process (a restart,
 * the test files of one worker), so each builds the logger anew (resetLogger); the middlewares and
 * modules that hold `logger` reach the new one through it.
 */
export const logger: Logger = new Proxy(current, {
  get: (_target, name) => {
    const value: unknown = Reflect.get(current, name, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
  set: (_target, name, value) => Reflect.set(current, name, value, current),
});

/** A new logger from the environment as it is now: the local stack's start (infra/local/stack.ts). */
export const resetLogger = (): void => {
  current = build();
};
