import { describe, expect, it } from 'vitest';
import { reasonMessage, vehicleList } from '../../../functions/routing/previews/reason-messages.ts';
import { unassignedReasons } from '../../../shared/planning/reasons.ts';
import { planeProblem } from '../planning/instances.ts';

const messages = (problem: ReturnType<typeof planeProblem>, order: number) => {
  const why = unassignedReasons(problem, order);
  return why.codes.map((code) => ({ code, message: reasonMessage(code, why) }));
};

describe('reasons when the vehicles differ (decisions 18)', () => {
  it('gives every code that holds for every vehicle, and only those', () => {
    // Nobody has 'grúa'; only vehicle 1 is too small: skills_missing holds for all, capacity_exceeded does not.
    const problem = planeProblem([0, 0], [{ at: [10, 0], skills: ['grúa'], load: [50, 0] }], [{ capacity: [10, 10] }, { capacity: [100, 100], skills: ['frío'] }]);
    expect(unassignedReasons(problem, 0)).toMatchObject({ codes: ['skills_missing'], ruledOut: { skills_missing: [0, 1], capacity_exceeded: [0] } });
    expect(messages(problem, 0)).toEqual([{ code: 'skills_missing', message: 'None of the 2 vehicles has every skill it needs.' }]);
  });

  it('gives two codes when both hold for every vehicle', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], skills: ['grúa'], load: [50, 0] }], [{ capacity: [10, 10] }, { capacity: [20, 20] }]);
    expect(messages(problem, 0).map((r) => r.code)).toEqual(['skills_missing', 'capacity_exceeded']);
  });

  it('says no_vehicle_fits and what rules out each vehicle when no code holds for all', () => {
    const problem = planeProblem(
      [0, 0],
      [{ at: [10, 0], skills: ['frío'], load: [50, 0], windows: [[10, 40]] }],
      [
        { capacity: [100, 100] }, // lacks the skill
        { capacity: [10, 10], skills: ['frío'] }, // too small
        { capacity: [100, 100], skills: ['frío'], shiftStart: 50 }, // starts after the window closes
        { capacity: [100, 100], skills: [] }, // lacks the skill
        { capacity: [100, 100] }, // lacks the skill
      ],
    );
    expect(messages(problem, 0)).toEqual([
      {
        code: 'no_vehicle_fits',
        message:
          'No single vehicle can serve it on a route of its own: vehicles 1, 4 and 5 lack a skill it needs; its load is more than vehicle 2 can carry; vehicle 3 cannot serve it within one of its time windows and be back by the end of the shift (vehicles numbered as in the request).',
      },
    ]);
  });

  it('says no_room only when some vehicle could serve the order alone', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], skills: ['frío'] }], [{ capacity: [1, 1] }, { skills: ['frío'] }]);
    expect(unassignedReasons(problem, 0).codes).toEqual(['no_room']);
    // A vehicle that would fit but takes no stops does not make room: it is named for that.
    const noStops = planeProblem([0, 0], [{ at: [10, 0], skills: ['frío'] }], [{}, { skills: ['frío'], maxStops: 0 }]);
    expect(messages(noStops, 0)).toEqual([
      { code: 'no_vehicle_fits', message: 'No single vehicle can serve it on a route of its own: vehicle 1 lacks a skill it needs; vehicle 2 takes no stops (vehicles numbered as in the request).' },
    ]);
  });

  it('lists vehicles compactly, runs of three or more as ranges', () => {
    expect(vehicleList([0])).toBe('vehicle 1');
    expect(vehicleList([0, 1])).toBe('vehicles 1 and 2');
    expect(vehicleList([0, 1, 2, 4, 6, 7, 8, 9])).toBe('vehicles 1-3, 5 and 7-10');
    expect(vehicleList(Array.from({ length: 100 }, (_, i) => i))).toBe('vehicles 1-100');
  });
});
