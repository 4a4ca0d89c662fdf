import type { PlanningOrder, PlanningProblem, PlanningVehicle } from '../../../shared/planning/problem.ts';
import { routeCost } from '../../../bench/routing/checker.ts';

export type Point = readonly [number, number];

/** A problem on the plane: travel time and distance both Euclidean, the depot at `depot`. */
export function planeProblem(
  depot: Point,
  orders: Array<Partial<PlanningOrder> & { at: Point }>,
  vehicles: Array<Partial<PlanningVehicle>>,
  objective: PlanningProblem['objective'] = 'distance',
): PlanningProblem {
  const points = [depot, ...orders.map((o) => o.at)];
  const size = points.length;
  const matrix = new Float64Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) matrix[i * size + j] = Math.hypot(points[i][0] - points[j][0], points[i][1] - points[j][1]);
  return {
    distance: matrix,
    duration: matrix,
    objective,
    orders: orders.map((o) => ({ windows: o.windows ?? [], service: o.service ?? 0, load: o.load ?? [0, 0], skills: o.skills ?? [] })),
    vehicles: vehicles.map((v) => ({
      shiftStart: v.shiftStart ?? 0,
      shiftEnd: v.shiftEnd ?? 1e6,
      capacity: v.capacity ?? [Infinity, Infinity],
      skills: v.skills ?? [],
      maxStops: v.maxStops ?? 300,
    })),
  };
}

/** A seeded generator for test instances (not the optimizer's). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/**
 * The optimum by enumeration: every feasible visiting sequence of every vehicle, then the best
 * disjoint combination; fewest unassigned first, then the objective. For ≤ 8 orders.
 */
export function bruteForce(problem: PlanningProblem): { unassigned: number; cost: number } {
  const n = problem.orders.length;
  const full = (1 << n) - 1;
  let dp = new Float64Array(1 << n).fill(Infinity);
  dp[0] = 0;
  problem.vehicles.forEach((_, v) => {
    const bestOf = new Float64Array(1 << n).fill(Infinity);
    bestOf[0] = 0;
    const extend = (sequence: number[], mask: number): void => {
      for (let order = 0; order < n; order++) {
        if (mask & (1 << order)) continue;
        const next = [...sequence, order];
        const route = routeCost(problem, v, next);
        // A stop added at the end mends nothing (on the plane, coming back only gets later).
        if (!route.feasible) continue;
        const cost = problem.objective === 'distance' ? route.distance : route.duration;
        const m = mask | (1 << order);
        if (cost < bestOf[m]) bestOf[m] = cost;
        extend(next, mask | (1 << order));
      }
    };
    extend([], 0);
    const next = new Float64Array(1 << n).fill(Infinity);
    for (let mask = 0; mask <= full; mask++) {
      if (dp[mask] === Infinity) continue;
      const rest = full & ~mask;
      for (let sub = rest; ; sub = (sub - 1) & rest) {
        if (bestOf[sub] < Infinity && dp[mask] + bestOf[sub] < next[mask | sub]) next[mask | sub] = dp[mask] + bestOf[sub];
        if (sub === 0) break;
      }
    }
    dp = next;
  });
  let best = { unassigned: n + 1, cost: Infinity };
  for (let mask = 0; mask <= full; mask++) {
    if (dp[mask] === Infinity) continue;
    const unassigned = n - popcount(mask);
    if (unassigned < best.unassigned || (unassigned === best.unassigned && dp[mask] < best.cost)) best = { unassigned, cost: dp[mask] };
  }
  return best;
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}
