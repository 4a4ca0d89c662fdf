import { describe, expect, it } from 'vitest';
import { solveProblem } from '../../../shared/planning/optimizer/index.ts';
import { planeProblem } from '../planning/instances.ts';

const problem = planeProblem([0, 0], [{ at: [10, 0] }, { at: [0, 10] }, { at: [-10, 0] }, { at: [5, 5] }], [{}, {}]);

describe('what stopped the search (decisions 18: solver.stoppedBy)', () => {
  it('is work when the search spent its budget of work', () => {
    const { stats } = solveProblem(problem, { seconds: 600, seed: 1, work: 50_000 });
    expect(stats.stoppedBy).toBe('work');
    expect(stats.work).toBeGreaterThanOrEqual(50_000);
  });

  it('is time when the time limit ends the search before its budget', () => {
    // A limit of 0 s is spent before the budget of a million million units, on any machine.
    expect(solveProblem(problem, { seconds: 0, seed: 1, work: 1e12 }).stats.stoppedBy).toBe('time');
  });

  it('is work when there is nothing to search', () => {
    expect(solveProblem(planeProblem([0, 0], [], [{}]), { seconds: 0, seed: 1, work: 10 }).stats.stoppedBy).toBe('work');
  });
});
