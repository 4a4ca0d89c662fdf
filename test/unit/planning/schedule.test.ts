import { describe, expect, it } from 'vitest';
import { RouteInfeasibleError, scheduleRoute } from '../../../shared/planning/schedule.ts';
import { planeProblem } from './instances.ts';

describe('a route schedule', () => {
  it('leaves as late as makes the route shortest in time, and says where it waits', () => {
    // A closes at 50, B opens at 100: leaving at 40 reaches A as it closes and waits 40 at B.
    const problem = planeProblem([0, 0], [{ at: [10, 0], windows: [[0, 50]] }, { at: [20, 0], windows: [[100, 110]], service: 5, load: [2, 0.5] }], [{ shiftStart: 0, shiftEnd: 500 }]);
    const schedule = scheduleRoute(problem, { vehicle: 0, orders: [0, 1] });
    expect(schedule.start).toBe(40);
    expect(schedule.stops.map((s) => [s.arrival, s.serviceStart, s.departure, s.wait])).toEqual([
      [50, 50, 50, 0],
      [60, 100, 105, 40],
    ]);
    expect(schedule.end).toBe(125);
    expect(schedule.duration).toBe(85);
    expect(schedule.distance).toBe(40);
    expect(schedule.load).toEqual([2, 0.5]);
  });

  it('keeps the earlier window when leaving later would push a stop into a later one', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], windows: [[0, 20], [300, 310]] }], [{ shiftStart: 0, shiftEnd: 1000 }]);
    const schedule = scheduleRoute(problem, { vehicle: 0, orders: [0] });
    expect(schedule.duration).toBe(20);
    expect(schedule.stops[0].serviceStart).toBeLessThanOrEqual(20);
  });

  it('refuses a route no departure can serve', () => {
    const problem = planeProblem([0, 0], [{ at: [10, 0], windows: [[0, 5]] }], [{ shiftStart: 0, shiftEnd: 100 }]);
    expect(() => scheduleRoute(problem, { vehicle: 0, orders: [0] })).toThrow(RouteInfeasibleError);
  });
});
