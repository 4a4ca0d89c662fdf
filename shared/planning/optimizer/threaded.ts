import { Worker } from 'node:worker_threads';
import type { PlanningSolution, RouteOptimizer } from '../problem.ts';
import { OPTIMIZER_NAME, OPTIMIZER_VERSION } from './index.ts';

/**
 * The same optimizer, run in a worker thread per solve. The local stack serves every request on
 * one event loop: a 60 s solve on it froze the API (polls timed out, sockets closed). In a Lambda
 * the in-process optimizer is right, one message per container at a time.
 */
export const threadedOptimizer = (): RouteOptimizer => ({
  name: OPTIMIZER_NAME,
  version: OPTIMIZER_VERSION,
  solve: (problem, options) =>
    new Promise<PlanningSolution>((resolve, reject) => {
      // The thread loads TypeScript the way this process does (tsx), whatever started it.
      const execArgv = process.execArgv.some((arg) => arg.includes('tsx')) ? process.execArgv : [...process.execArgv, '--import', 'tsx'];
      const worker = new Worker(new URL('./solve-thread.ts', import.meta.url), { workerData: { problem, options }, execArgv });
      worker.once('message', (answer: { solution?: PlanningSolution; error?: { name: string; message: string } }) => {
        if (answer.solution) resolve(answer.solution);
        else reject(Object.assign(new Error(answer.error?.message ?? 'the optimizer failed'), { name: answer.error?.name ?? 'Error' }));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the optimizer's thread ended (code ${code}) without an answer`)));
    }),
});
