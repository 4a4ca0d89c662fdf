import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface MemorySample {
  rss?: number;
  heapUsed: number;
  dynamoRss?: number;
}

export interface StackChild {
  pid: number;
  baseUrl: string;
  tableName: string;
  dynamoEndpoint: string;
  dynamoPid?: number;
  memory(): Promise<MemorySample>;
  stop(): Promise<void>;
}

/** Starts bench/load/stack-process.ts as a child (tsx, --expose-gc) and waits for its `ready`. */
export const startStackChild = (dataDir: string): Promise<StackChild> => {
  const child: ChildProcess = fork(fileURLToPath(new URL('./stack-process.ts', import.meta.url)), [dataDir], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (type: string) =>
    new Promise<any>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the stack process exited (${code}) before answering ${type}`));
      child.once('exit', onExit);
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message);
      };
      child.on('message', onMessage);
    });
  return next('ready').then((ready) => ({
    pid: child.pid!,
    ...ready,
    memory: () => {
      const answer = next('memory');
      child.send({ type: 'memory' });
      return answer;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.send({ type: 'stop' });
      }),
  }));
};
