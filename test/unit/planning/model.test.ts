import { describe, expect, it } from 'vitest';
import { compileModel } from '../../../shared/planning/optimizer/model.ts';
import { planeProblem } from './instances.ts';

describe('the compiled model', () => {
  it('ranks granular neighbours by distance plus the wait and time warp between windows (PyVRP neighbourhood.py), the ruin\'s by distance alone', () => {
    // Order 0 opens at 0; order 1 is nearest but closes long before order 0 could follow or precede it; order 2 is farther and fits.
    const problem = planeProblem(
      [0, 0],
      [
        { at: [50, 0], windows: [[500, 510]] },
        { at: [51, 0], windows: [[0, 5]] },
        { at: [60, 0], windows: [[520, 540]] },
      ],
      [{ shiftStart: 0, shiftEnd: 1000 }],
    );
    const m = compileModel(problem);
    expect(Array.from(m.neighbours.subarray(1 * m.nbCount, 2 * m.nbCount))).toEqual([2, 3]);
    expect(Array.from(m.granular.subarray(1 * m.granularCount, 2 * m.granularCount))).toEqual([3, 2]);
  });
});
