import { startLocalStack } from '../../infra/local/stack.ts';
import { childrenNamed, residentBytes } from './processes.ts';

/**
 * The local stack as its own process for `npm run load`: the load driver (autocannon, the
 * receiver, the floor's client) then never shares the gateway's event loop, and each process's
 * memory is measured apart. Talks to its parent over IPC: `ready` once listening, `memory` on
 * request (heap used after a full GC: run with --expose-gc), and stops on `stop`.
 */
const dataDir = process.argv[2];
const stack = await startLocalStack({
  port: 0,
  dataDir,
  env: {
    WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1',
    TENANT_RATE_LIMIT_PER_MINUTE: process.env.LOAD_TENANT_RATE_PER_MINUTE ?? '60000',
    // The WAF stand-in counts per client address, and every load client is 127.0.0.1.
    TRACKING_RATE_LIMIT_PER_MINUTE: process.env.LOAD_TRACKING_RATE_PER_MINUTE ?? '1000000',
  },
});
const [dynamoPid] = childrenNamed(process.pid, 'java');

type Message = { type: 'memory' } | { type: 'stop' };
let stopping: Promise<void> | undefined;
const stop = async () => {
  await (stopping ??= stack.stop());
  process.exit(0);
};
// The load run ended without saying so (Ctrl-C, a crash): stop DynamoDB Local with us.
process.on('disconnect', () => void stop());
process.on('message', async (message: Message) => {
  if (message.type === 'memory') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ type: 'memory', rss: residentBytes(process.pid), heapUsed: process.memoryUsage().heapUsed, dynamoRss: dynamoPid ? residentBytes(dynamoPid) : undefined });
  }
  if (message.type === 'stop') await stop();
});
process.send!({ type: 'ready', baseUrl: stack.baseUrl, tableName: stack.tableName, dynamoEndpoint: stack.dynamoEndpoint, dynamoPid });
