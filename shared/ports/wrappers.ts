import type { Pluggable } from '@smithy/types';

/**
 * Where something outside the ports stands in front of them: the IAM pass of the test run
 * (test/support/record-aws-calls.ts) registers the recording of each call here. The ports know
 * only this hook, never what registers it, so no port imports the instrumentation that wraps it.
 * In the cloud nothing is registered and every port is used as built.
 *
 * The ports that may be wrapped, by kind. Each port's module adds its own kind by declaration
 * merging (queue, scheduler and keys in registry.ts, which hands them out), so this hook imports
 * no port: the ports point down to it, never back.
 */
// Empty here on purpose: the ports fill it in.
export interface WrappablePorts {}

export interface PortWrappers {
  /** Each port as it is handed out: the wrapper returns the port to use (itself, or one in front of it). */
  ports: { [K in keyof WrappablePorts]?: (port: WrappablePorts[K]) => WrappablePorts[K] };
  /** Middleware added to the table's DynamoDB client when it is built (shared/table/client.ts). */
  tableClient: Pluggable<any, any>[];
}

const none: PortWrappers = { ports: {}, tableClient: [] };
let current: PortWrappers = none;

/**
 * Replaces the wrappers and returns those before, so a test can put them back. Ports and the
 * table client already built keep what they were built with: register before first use.
 */
export const wrapPorts = (next: Partial<PortWrappers> | undefined): PortWrappers => {
  const previous = current;
  current = next ? { ...none, ...next } : none;
  return previous;
};

/** The port to hand out: `port` as the registered wrapper, if any, returns it. */
export const wrapped = <K extends keyof WrappablePorts>(kind: K, port: WrappablePorts[K]): WrappablePorts[K] => {
  const wrap = current.ports[kind] as ((p: WrappablePorts[K]) => WrappablePorts[K]) | undefined;
  return wrap ? wrap(port) : port;
};

export const tableClientMiddleware = (): readonly Pluggable<any, any>[] => current.tableClient;
