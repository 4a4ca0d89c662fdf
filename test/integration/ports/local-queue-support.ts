import { afterEach } from 'vitest';
import { LocalQueue, type LocalQueueOptions } from '../../../infra/local/stand-ins/local-queue.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

/** Polls every 5 ms, as fast as the stand-ins' own 5 ms polls in these tests. */
export const waitFor = async (check: () => boolean, ms = WAIT_LIMIT_MS) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

export const msg = (i: number): DeliveryMessage => ({ tenantId: 't1', deliveryId: `d${i}` });

/** Queues polling every 5 ms (`newQueue`), and any other (`stopAfterEach`), that the file's next afterEach stops. */
export const useLocalQueues = () => {
  const queues: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.stop()));
  });
  const stopAfterEach = <Q extends { stop(): Promise<void> }>(queue: Q): Q => {
    queues.push(queue);
    return queue;
  };
  const newQueue = (options: Partial<LocalQueueOptions> & Pick<LocalQueueOptions, 'consumer'>) => stopAfterEach(new LocalQueue({ pollMs: 5, onError: () => {}, ...options }));
  return { newQueue, stopAfterEach };
};
