import type { Model } from './model.ts';
import type { Solution } from './solution.ts';

/**
 * The lexicographic objective as one number: a penalty per unassigned order larger than any set
 * of routes can cost, then (objective `vehicles`) a penalty per route larger than any routes'
 * distance, then the objective's sum (distance, or route time under `duration`).
 */
export interface Penalties {
  unassigned: number;
  route: number;
}

export function penalties(m: Model): Penalties {
  let max = 0;
  for (let i = 0; i < m.arc.length; i++) if (m.arc[i] > max) max = m.arc[i];
  let longest = 0;
  for (let v = 0; v < m.vehicles; v++) longest = Math.max(longest, Number.isFinite(m.vEnd[v] - m.vStart[v]) ? m.vEnd[v] - m.vStart[v] : 0);
  // Every arc of the matrix's largest, once per order and vehicle, and every shift whole: more than any routes cost.
  const routes = 2 * (max * (m.n + m.vehicles) + (m.durationObjective ? longest * m.vehicles : 0)) + 1;
  if (!m.vehiclesObjective) return { unassigned: routes, route: 0 };
  return { unassigned: routes * (m.vehicles + 1), route: routes };
}

export function totalCost(s: Solution, p: Penalties): number {
  s.meter.work += s.m.vehicles;
  let total = s.unCount * p.unassigned;
  for (let r = 0; r < s.m.vehicles; r++) if (s.len[r] > 0) total += p.route + s.cost[r];
  return total;
}
