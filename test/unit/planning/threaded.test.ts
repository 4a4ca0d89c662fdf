import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSolomon, toProblem } from '../../../bench/routing/solomon.ts';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import { threadedOptimizer } from '../../../shared/planning/optimizer/threaded.ts';

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const r101 = resolve(projectRoot, '../shared/routing/solomon/R101.txt');

// The local stack serves every request on one event loop; its preview worker solves through this.
describe('the optimizer in a worker thread', () => {
  it('leaves the event loop free while it solves, and gives the routes the in-process search gives', async () => {
    const problem = toProblem(readSolomon(r101));
    const options = { seconds: 600, seed: 7, work: 5_000_000 };
    let ticks = 0;
    let solving = true;
    const tick = () => {
      ticks++;
      if (solving) setTimeout(tick, 5);
    };
    setTimeout(tick, 5);
    const threaded = await threadedOptimizer().solve(problem, options);
    solving = false;
    const ticksWhileSolving = ticks;

    const inProcess = solveProblem(problem, options);
    expect(threaded.routes).toEqual(inProcess.routes);
    expect(threaded.unassigned).toEqual(inProcess.unassigned);
    expect(threaded.stats.stoppedBy).toBe('work');
    expect(threaded.stats.work).toBe(inProcess.stats.work);
    // Solved on this thread, the search would have let no timer run until it ended.
    expect(ticksWhileSolving).toBeGreaterThan(5);
  }, 120_000);

  it('passes the search\'s own error back', async () => {
    const problem = toProblem(readSolomon(r101));
    await expect(threadedOptimizer().solve({ ...problem, distance: new Float64Array(4) }, { seconds: 1, seed: 1 })).rejects.toThrow(/matrices must be/);
  });
});
