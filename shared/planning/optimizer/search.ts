import { acceptsByAbsences, Annealing } from './acceptance.ts';
import { Budget } from './budget.ts';
import { penalties, type Penalties, totalCost } from './cost.ts';
import { finalInsertionPass } from './final-pass.ts';
import { FLEET_MOVES, localSearch } from './local-search.ts';
import type { Model } from './model.ts';
import { recreateWithBlinks } from './operators/recreate-blinks.ts';
import { removeRoute } from './operators/remove-route.ts';
import { ruinStrings } from './operators/ruin-strings.ts';
import { Rng } from './rng.ts';
import { Solution } from './solution.ts';
import { Work } from './work.ts';

export interface SearchLimits {
  /** The deterministic budget, in units of work (budget.ts). */
  work: number;
  /** The safety limit, CPU seconds of this thread. */
  seconds: number;
  seed: number;
  /** cpuUsage() when the solve began: compiling the problem counts against the safety limit. */
  cpuStart?: NodeJS.CpuUsage;
}

export interface SearchResult {
  /** Per vehicle, its customers (locations 1 .. n) in visiting order. */
  routes: number[][];
  iterations: number;
  work: number;
  elapsedMs: number;
  stoppedBy: 'work' | 'time';
}

/** Under `vehicles`, the share of the work given to fleet minimisation before the annealing. */
const FLEET_SHARE = 0.5;

/**
 * SISR (Christiaens & Vanden Berghe 2020): a first solution by greedy insertion; under `vehicles`,
 * fleet minimisation on FLEET_SHARE of the work; then ruin and recreate accepted by simulated
 * annealing on the rest. A granular local search (local-search.ts) improves each candidate fleet
 * minimisation accepts, and each the annealing accepts that is better than the current solution.
 * Last, an insertion pass with no randomness over the best routes found.
 */
export function search(m: Model, limits: SearchLimits): SearchResult {
  const budget = new Budget(limits.work, limits.seconds, limits.cpuStart);
  const state = new SearchState(m, budget, new Rng(limits.seed));
  state.construct();
  if (m.vehiclesObjective) state.minimiseFleet(limits.work * FLEET_SHARE);
  state.anneal(limits.work);
  const final = new Solution(m, budget);
  final.load(state.best);
  finalInsertionPass(final, state.rng, state.work);
  return {
    routes: final.snapshot(),
    iterations: state.iterations,
    work: Math.round(budget.work),
    elapsedMs: Math.round(budget.cpuMs()),
    stoppedBy: budget.stoppedBy ?? 'work',
  };
}

/** One search's solutions, scratch and counters: nothing of it outlives the call. */
class SearchState {
  readonly work: Work;
  readonly current: Solution;
  readonly candidate: Solution;
  readonly penalties: Penalties;
  readonly all: Int32Array;
  best: number[][] = [];
  bestCost = Infinity;
  iterations = 0;

  constructor(
    readonly m: Model,
    readonly budget: Budget,
    readonly rng: Rng,
  ) {
    this.work = new Work(m, budget);
    this.current = new Solution(m, budget);
    this.candidate = new Solution(m, budget);
    this.penalties = penalties(m);
    this.all = new Int32Array(m.vehicles).map((_, r) => r);
  }

  /** First solution: every customer inserted greedily into an empty fleet. */
  construct(): void {
    const { work: w, current } = this;
    w.begin();
    for (let i = 0; i < current.unCount; i++) w.removed[w.removedCount++] = current.unassigned[i];
    recreateWithBlinks.apply(current, this.rng, w);
    this.candidate.copyFrom(current, this.all, this.all.length);
    this.bestCost = totalCost(current, this.penalties);
    this.best = current.snapshot();
  }

  /**
   * SISR's fleet minimisation: take out a whole route, then ruin and recreate with no new route
   * allowed, accepting by fewer customers left out or fewer past absences of those left out, each
   * accepted candidate improved by the local search;
   * once as many are served as before, that fleet is the best and another route goes. Ends at
   * `until` units of work, or at the lower bound of the loads.
   */
  minimiseFleet(until: number): void {
    const { m, work: w, current, candidate, budget, rng } = this;
    const target = current.unCount;
    const absences = new Int32Array(m.size);
    const floor = routesLowerBound(m);
    const absent = (s: Solution): number => {
      let sum = 0;
      for (let i = 0; i < s.unCount; i++) sum += absences[s.unassigned[i]];
      return sum;
    };
    w.retryUnassigned = Infinity;
    let currentAbsent = 0;
    while (budget.work < until && !budget.spent()) {
      if (current.unCount <= target) {
        this.keepBest(current);
        const used = current.used();
        if (used <= floor) break;
        w.begin();
        removeRoute(current, w, absences);
        candidate.copyFrom(current, w.touched, w.touchedCount);
        w.routeCap = used - 1;
        currentAbsent = absent(current);
      }
      this.iterations++;
      w.begin();
      ruinStrings.apply(candidate, rng, w);
      recreateWithBlinks.apply(candidate, rng, w);
      for (let i = 0; i < candidate.unCount; i++) absences[candidate.unassigned[i]]++;
      const candidateAbsent = absent(candidate);
      if (acceptsByAbsences(candidate.unCount, candidateAbsent, current.unCount, currentAbsent)) {
        // The accepted partial solution is taken to a local optimum too (FILO's route
        // minimisation does so): shorter routes leave the slack a left-out customer needs.
        localSearch(candidate, rng, w, this.penalties, w.touched, w.touchedCount, FLEET_MOVES, []);
        current.copyFrom(candidate, w.touched, w.touchedCount);
        currentAbsent = candidateAbsent;
      } else {
        candidate.copyFrom(current, w.touched, w.touchedCount);
      }
    }
    // The annealing goes on from the fewest routes that served as many, and opens none beyond them.
    current.load(this.best);
    candidate.copyFrom(current, this.all, this.all.length);
    w.routeCap = current.used();
    w.retryUnassigned = 20;
  }

  /** Ruin and recreate accepted by simulated annealing, until `until` units of work. */
  anneal(until: number): void {
    const { m, work: w, current, candidate, budget, rng } = this;
    const annealing = new Annealing(m);
    const from = budget.work;
    let currentCost = totalCost(current, this.penalties);
    while (budget.work < until && !budget.spent()) {
      const progress = (budget.work - from) / (until - from);
      this.iterations++;
      w.begin();
      ruinStrings.apply(candidate, rng, w);
      recreateWithBlinks.apply(candidate, rng, w);
      let cost = totalCost(candidate, this.penalties);
      if (annealing.accepts(cost, currentCost, progress, rng)) {
        // Only a candidate that improves on the current solution is taken to a local optimum
        // around the routes the recreate changed. Worse ones the temperature lets through are
        // the annealing's diversification, most soon replaced: polishing every accepted
        // candidate took 78 % of the work on RC103, and polishing only these gives 2-4 times
        // the iterations on the same work (docs/performance.md, 2.4.0).
        if (cost < currentCost) {
          localSearch(candidate, rng, w, this.penalties, w.touched, w.touchedCount);
          cost = totalCost(candidate, this.penalties);
        }
        current.copyFrom(candidate, w.touched, w.touchedCount);
        currentCost = cost;
        if (cost < this.bestCost - 1e-9) this.keepBest(current, cost);
      } else {
        candidate.copyFrom(current, w.touched, w.touchedCount);
      }
    }
  }

  private keepBest(s: Solution, cost = totalCost(s, this.penalties)): void {
    this.bestCost = cost;
    this.best = s.snapshot();
  }
}

/** No fewer routes can carry the loads: the total over the largest capacity, per dimension. */
function routesLowerBound(m: Model): number {
  let sum0 = 0;
  let sum1 = 0;
  for (let c = 1; c <= m.n; c++) {
    sum0 += m.load0[c];
    sum1 += m.load1[c];
  }
  let cap0 = 0;
  let cap1 = 0;
  for (let v = 0; v < m.vehicles; v++) {
    cap0 = Math.max(cap0, m.vCap0[v]);
    cap1 = Math.max(cap1, m.vCap1[v]);
  }
  const bound = Math.max(1, cap0 > 0 ? Math.ceil(sum0 / cap0 - 1e-9) : 1, cap1 > 0 ? Math.ceil(sum1 / cap1 - 1e-9) : 1);
  return Number.isFinite(bound) ? bound : 1;
}
