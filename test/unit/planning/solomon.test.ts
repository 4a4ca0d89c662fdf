import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkSolution } from '../../../bench/routing/checker.ts';
import { readSolomon, toProblem } from '../../../bench/routing/solomon.ts';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';

/** The handout lies beside the project: `../shared` from the project root, whatever the cwd. */
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const c101 = resolve(projectRoot, '../shared/routing/solomon/C101.txt');

describe('the Solomon reader', () => {
  it('reads C101: the fleet, the depot and every customer', () => {
    const instance = readSolomon(c101);
    expect(instance.name).toBe('C101');
    expect(instance.vehicleCount).toBe(25);
    expect(instance.capacity).toBe(200);
    expect(instance.customers).toHaveLength(101);
    expect(instance.customers[0]).toEqual({ id: 0, x: 40, y: 50, demand: 0, ready: 0, due: 1236, service: 0 });
    expect(instance.customers[1]).toEqual({ id: 1, x: 45, y: 68, demand: 10, ready: 912, due: 967, service: 90 });
    expect(instance.customers[100].id).toBe(100);
  });

  it('gives the optimizer a problem whose answer the checker accepts, every customer served', () => {
    const problem = toProblem(readSolomon(c101));
    expect(problem.orders).toHaveLength(100);
    expect(problem.vehicles).toHaveLength(25);
    expect(problem.distance[1]).toBeCloseTo(Math.hypot(5, 18), 12);
    const solution = solveProblem(problem, { seconds: 60, seed: 1, work: 2_000_000 });
    const report = checkSolution(problem, solution);
    expect(report.violations).toEqual([]);
    expect(report.served).toBe(100);
  });
});
