import { parentPort, workerData } from 'node:worker_threads';
import type { PlanningProblem, SolveOptions } from '../problem.ts';
import { solveProblem } from './index.ts';

/** The worker thread's body (threaded.ts): one problem in, its solution or its error out. */
const { problem, options } = workerData as { problem: PlanningProblem; options: SolveOptions };
try {
  parentPort!.postMessage({ solution: solveProblem(problem, options) });
} catch (error) {
  parentPort!.postMessage({ error: { name: (error as Error).name, message: (error as Error).message } });
}
