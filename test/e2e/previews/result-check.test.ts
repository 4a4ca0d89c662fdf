import { describe, expect, it } from 'vitest';
import { dayClock } from '../../../functions/routing/previews/day-clock.ts';
import { InfeasibleSolutionError, previewResult } from '../../../functions/routing/previews/schedule.ts';
import type { PlanningProblem, PlanningSolution } from '../../../shared/planning/problem.ts';

/**
 * The worker stores no route that breaks a rule of decisions 15, whatever the optimizer answers:
 * each kind of wrong answer makes the preview fail (`solver_error`) instead of showing it.
 */
const problem = (): PlanningProblem => {
  // The depot and three orders in a row, 600 m and 60 s between neighbours.
  const size = 4;
  const distance = new Float64Array(size * size);
  const duration = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = 0; j < size; j++) {
      distance[i * size + j] = Math.abs(i - j) * 600;
      duration[i * size + j] = Math.abs(i - j) * 60;
    }
  }
  return {
    distance,
    duration,
    objective: 'duration',
    orders: [
      { windows: [], service: 300, load: [400, 0], skills: [] },
      { windows: [[9 * 3600, 9 * 3600 + 600]], service: 300, load: [400, 0], skills: [] },
      { windows: [], service: 300, load: [300, 0], skills: ['frío'] },
    ],
    vehicles: [
      { shiftStart: 8 * 3600, shiftEnd: 18 * 3600, capacity: [1000, Infinity], skills: ['frío'], maxStops: 3 },
      { shiftStart: 8 * 3600, shiftEnd: 18 * 3600, capacity: [500, Infinity], skills: [], maxStops: 1 },
    ],
  };
};
const ids = { orderIds: ['o-1', 'o-2', 'o-3'], vehicleIds: ['v-1', 'v-2'] };
const clock = dayClock('2026-11-23', 'America/Santiago');
const answer = (routes: PlanningSolution['routes'], unassigned: PlanningSolution['unassigned'] = []): PlanningSolution => ({ routes, unassigned, stats: { iterations: 1, work: 1, elapsedMs: 1, stoppedBy: 'work' } });

describe('the preview of an optimizer answer', () => {
  it('times a sound answer: leaving at the latest departure that waits nowhere first, numbered in vehicle order', () => {
    const result = previewResult(problem(), answer([{ vehicle: 1, orders: [0] }, { vehicle: 0, orders: [1, 2] }]), ids, clock);
    expect(result.routes.map((r) => [r.vehicleRouteId, r.vehicleId])).toEqual([
      ['V1', 'v-1'],
      ['V2', 'v-2'],
    ]);
    // o-2 opens at 09:00, 120 s from the depot: V1 leaves 08:58:00 and waits nowhere.
    expect(result.routes[0]).toMatchObject({ startAt: '2026-11-23T08:58:00-03:00', endAt: '2026-11-23T09:14:00-03:00', durationSeconds: 960, distanceMeters: 3600, load: { weightKg: 0.7, volumeM3: 0 } });
    expect(result.routes[0].stops.map((s) => [s.arrivalAt, s.serviceStartAt, s.departureAt, s.waitSeconds, s.distanceMetersFromPrevious])).toEqual([
      ['2026-11-23T09:00:00-03:00', '2026-11-23T09:00:00-03:00', '2026-11-23T09:05:00-03:00', 0, 1200],
      ['2026-11-23T09:06:00-03:00', '2026-11-23T09:06:00-03:00', '2026-11-23T09:11:00-03:00', 0, 600],
    ]);
    expect(result.totals).toEqual({ routeCount: 2, assignedCount: 3, unassignedCount: 0, distanceMeters: 3600 + 1200, durationSeconds: 960 + 420 });
  });

  const variant = (change: (p: PlanningProblem) => void) => {
    const p = problem();
    change(p);
    return p;
  };
  const wrong: Array<[string, PlanningProblem, PlanningSolution]> = [
    ['a load over the vehicle’s capacity', problem(), answer([{ vehicle: 0, orders: [0, 1, 2] }])],
    ['more stops than maxStops', variant((p) => (p.vehicles[0].maxStops = 1)), answer([{ vehicle: 0, orders: [1, 2] }, { vehicle: 1, orders: [0] }])],
    ['a skill the vehicle lacks', problem(), answer([{ vehicle: 1, orders: [2] }, { vehicle: 0, orders: [0, 1] }])],
    ['a window missed', variant((p) => (p.vehicles[0].shiftStart = 9.5 * 3600)), answer([{ vehicle: 0, orders: [1, 2] }, { vehicle: 1, orders: [0] }])],
    ['an order both routed and unassigned', problem(), answer([{ vehicle: 0, orders: [1, 2] }, { vehicle: 1, orders: [0] }], [{ order: 0, codes: ['no_room'] }])],
    ['an order left out', problem(), answer([{ vehicle: 0, orders: [1, 2] }])],
    ['an order that does not exist', problem(), answer([{ vehicle: 0, orders: [1, 2] }, { vehicle: 1, orders: [0] }], [{ order: 3, codes: ['no_room'] }])],
    ['two routes for one vehicle', problem(), answer([{ vehicle: 0, orders: [1] }, { vehicle: 0, orders: [2] }, { vehicle: 1, orders: [0] }])],
    ['a route back after the shift', variant((p) => (p.vehicles[1].shiftEnd = 8 * 3600 + 300)), answer([{ vehicle: 0, orders: [1, 2] }, { vehicle: 1, orders: [0] }])],
  ];
  it.each(wrong)('refuses %s', (_, p, solution) => {
    expect(() => previewResult(p, solution, ids, clock)).toThrow(InfeasibleSolutionError);
  });
});
