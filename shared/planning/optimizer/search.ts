import { isMainThread } from 'node:worker_threads';
import type { Model } from './model.ts';
import { recreate } from './recreate.ts';
import { Rng } from './rng.ts';
import { ruin } from './ruin.ts';
import { Solution } from './solution.ts';
import { Work } from './work.ts';

/**
 * CPU time of the solving thread: the process's on the main thread (the benchmark's rule), the
 * thread's own in a worker thread, where the process's would count the gateway beside it.
 */
export const cpuUsage = (since?: NodeJS.CpuUsage): NodeJS.CpuUsage => (isMainThread ? process.cpuUsage(since) : process.threadCpuUsage(since));

export interface SearchLimits {
  seconds: number;
  seed: number;
  iterations?: number;
  /** cpuUsage() when the solve began: compiling the problem counts against the budget. */
  cpuStart?: NodeJS.CpuUsage;
}

export interface SearchResult {
  /** Per vehicle, its customers (locations 1 .. n) in visiting order. */
  routes: number[][];
  iterations: number;
  elapsedMs: number;
  /** 'time' when the CPU seconds ran out before the iteration cap (or with no cap). */
  stoppedBy: 'work' | 'time';
}

/** Simulated annealing's temperatures, as multiples of the mean arc to a nearest neighbour. */
const T_START = 10;
const T_END = 0.1;
/** CPU time is read every this many iterations. */
const CLOCK_EVERY = 16;

/**
 * SISR (Christiaens & Vanden Berghe 2020): ruin with adjacent string removals, recreate with
 * greedy insertion with blinks, accept by simulated annealing (a candidate is kept when its cost
 * is below the current cost minus T·ln U). Cost is lexicographic: a penalty per unassigned order
 * larger than any set of routes can cost, then the objective.
 */
export function search(m: Model, limits: SearchLimits): SearchResult {
  const cpu0 = limits.cpuStart ?? cpuUsage();
  const cpuMs = (): number => {
    const u = cpuUsage(cpu0);
    return (u.user + u.system) / 1000;
  };
  const budgetMs = limits.seconds * 1000;
  const rng = new Rng(limits.seed);
  const work = new Work(m);
  const penalty = unassignedPenalty(m);
  const current = new Solution(m);
  const all = new Int32Array(m.vehicles).map((_, r) => r);

  // First solution: every customer inserted greedily into an empty fleet.
  work.begin();
  for (let i = 0; i < current.unCount; i++) work.removed[work.removedCount++] = current.unassigned[i];
  recreate(current, rng, work);
  const candidate = new Solution(m);
  candidate.copyFrom(current, all, all.length);

  let currentCost = current.total(penalty);
  let bestCost = currentCost;
  let best = snapshot(current);
  const scale = meanNearestArc(m);
  const t0 = T_START * scale;
  const tEnd = T_END * scale;
  const maxIterations = limits.iterations ?? Infinity;
  let iterations = 0;
  let elapsed = cpuMs();
  let stoppedBy: SearchResult['stoppedBy'] = 'work';
  while (iterations < maxIterations) {
    if (iterations % CLOCK_EVERY === 0) {
      elapsed = cpuMs();
      if (elapsed >= budgetMs) {
        stoppedBy = 'time';
        break;
      }
    }
    // With an iteration cap the schedule follows the iterations, so the routes depend on nothing
    // but the problem, the seed and the cap.
    const progress = Number.isFinite(maxIterations) ? iterations / maxIterations : elapsed / budgetMs;
    const temperature = t0 * Math.pow(tEnd / t0, progress);
    iterations++;

    work.begin();
    ruin(candidate, rng, work);
    recreate(candidate, rng, work);
    const cost = candidate.total(penalty);
    if (cost < currentCost - temperature * Math.log(rng.next())) {
      current.copyFrom(candidate, work.touched, work.touchedCount);
      currentCost = cost;
      if (cost < bestCost - 1e-9) {
        bestCost = cost;
        best = snapshot(current);
      }
    } else {
      candidate.copyFrom(current, work.touched, work.touchedCount);
    }
  }
  return { routes: best, iterations, elapsedMs: Math.round(cpuMs()), stoppedBy };
}

function snapshot(s: Solution): number[][] {
  const routes: number[][] = [];
  for (let r = 0; r < s.m.vehicles; r++) {
    const o = s.off[r];
    routes.push(Array.from(s.nodes.subarray(o + 1, o + 1 + s.len[r])));
  }
  return routes;
}

/** More than any feasible set of routes costs: every arc of the matrix's largest, once per order and vehicle. */
function unassignedPenalty(m: Model): number {
  let max = 0;
  for (let i = 0; i < m.arc.length; i++) if (m.arc[i] > max) max = m.arc[i];
  let longest = 0;
  for (let v = 0; v < m.vehicles; v++) longest = Math.max(longest, Number.isFinite(m.vEnd[v] - m.vStart[v]) ? m.vEnd[v] - m.vStart[v] : 0);
  return 2 * (max * (m.n + m.vehicles) + (m.durationObjective ? longest * m.vehicles : 0)) + 1;
}

/** The temperature's unit: the mean over customers of the arc to the nearest other customer. */
function meanNearestArc(m: Model): number {
  if (m.nbCount === 0) return 1;
  let sum = 0;
  for (let c = 1; c <= m.n; c++) sum += m.arc[c * m.size + m.neighbours[c * m.nbCount]];
  const mean = sum / m.n;
  return mean > 0 ? mean : 1;
}
