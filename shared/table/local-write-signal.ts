import type { InitializeMiddleware, Pluggable } from '@smithy/types';

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

const listeners = new Set<() => void>();

/**
 * Told after each table write this process made against a local endpoint (client.ts adds the
 * middleware only then; never in the cloud). The local stack's stream reader reads the stream at
 * once instead of at its next idle poll, so it can poll seldom while nothing is written.
 */
export const onLocalTableWrite = (listener: () => void): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

const signal: InitializeMiddleware<object, object> = (next, context) => async (args) => {
  try {
    return await next(args);
  } finally {
    // A failed write (a condition, a cancelled transaction) may still have written nothing; a
    // needless read of the stream costs one request.
    if (WRITES.has((context as { commandName?: string }).commandName ?? '')) for (const listener of listeners) listener();
  }
};

export const localWriteSignal: Pluggable<any, any> = {
  applyToStack: (stack) => stack.add(signal as never, { step: 'initialize', name: 'localWriteSignal' }),
};
