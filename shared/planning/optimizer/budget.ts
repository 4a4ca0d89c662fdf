import { isMainThread } from 'node:worker_threads';

/**
 * CPU time of the solving thread: the process's on the main thread (the benchmark's rule), the
 * thread's own in a worker thread, where the process's would count the gateway beside it.
 */
export const cpuUsage = (since?: NodeJS.CpuUsage): NodeJS.CpuUsage => (isMainThread ? process.cpuUsage(since) : process.threadCpuUsage(since));

/**
 * The unit of work (docs/routing.md, "Budget and determinism"): one insertion position evaluated,
 * one stop rescheduled or copied. Each is a few dozen machine instructions, so work follows CPU
 * time within a small factor on any problem, and it depends on nothing but the problem, the seed
 * and the budget.
 */
export interface Meter {
  work: number;
  /** The budget: the local search stops between two customers once it is spent (none: Infinity). */
  readonly maxWork?: number;
}

/**
 * Work one second of this machine's CPU does (one core of a 2-core Intel Xeon, Sapphire Rapids
 * class, under load) under `distance` and `vehicles`, measured at 100, 400 and 1,000 customers
 * (Solomon, Gehring & Homberger; docs/performance.md, "Route optimizer"): what the benchmark's
 * `--seconds N` stands for. The rate differs by size (route lengths, the matrix in the cache or
 * not) and by how the work splits between ruin and recreate and the local search. Between the measured
 * sizes the rate is interpolated in log n, beyond them held: a function of the size alone, so
 * `--seconds N` stays as deterministic as `--work`.
 */
// 2.2.0 (the local search on accepted candidates only, a cheaper unit on average): 57 million a
// second at 100 customers, 41-63 million at 400, 24-45 million at 1,000; 2.1.0 had 40, 23, 18.
// 2.4.0 (fewer candidates polished): all 56 Solomon instances at 400 million units took 6.7 s of
// CPU on average on a quiet machine (5.3-9.7 s), 60 million a second; runs of a few instances
// minutes apart varied by half (the machine's neighbours), so 100 customers stay at 55 million.
const MEASURED_RATES: ReadonlyArray<readonly [customers: number, workPerSecond: number]> = [
  [100, 55_000_000],
  [400, 45_000_000],
  [1000, 30_000_000],
];

export function workPerSecond(customers: number): number {
  const rates = MEASURED_RATES;
  if (customers <= rates[0][0]) return rates[0][1];
  for (let i = 1; i < rates.length; i++) {
    const [n1, r1] = rates[i];
    if (customers <= n1) {
      const [n0, r0] = rates[i - 1];
      const t = Math.log(customers / n0) / Math.log(n1 / n0);
      return Math.round(r0 + t * (r1 - r0));
    }
  }
  return rates[rates.length - 1][1];
}

/**
 * The slowest rate measured here: 1,000 orders of a city day (long routes of 40-50 stops) under
 * `duration` (10-15 million a second) and `vehicles` with 100 vehicles (8.9 million a second;
 * 8.9-10.4 million with the local search on every candidate, 2.1.0; 34 million in 2.2.0, whose
 * local search runs on accepted candidates only; `distance` 20 million). The default budget is
 * priced at it.
 */
const SLOWEST_WORK_PER_SECOND = 8_000_000;
/**
 * The share of the time limit the default budget uses here at the slowest rate: the cloud
 * function (arm64 Graviton, one vCPU at 1,769 MB) is taken at half this machine's speed, so the
 * default budget ends by about 70 % of the limit there, and a 60 s limit keeps 18 s to spare.
 */
export const SPARE = 0.35;

/** The default deterministic budget for a time limit of `seconds` (the preview worker's). */
export const defaultWork = (seconds: number): number => Math.round(seconds * SLOWEST_WORK_PER_SECOND * SPARE);

/** How often the CPU clock is read, in units of work: reading it costs a system call. */
const CLOCK_EVERY = 200_000;

/**
 * The search's two limits: the work budget, which decides (the same problem, seed and budget give
 * the same routes), and the CPU seconds, a safety limit that only a slow or busy machine reaches.
 */
export class Budget implements Meter {
  work = 0;
  stoppedBy: 'work' | 'time' | null = null;
  private nextClock = 0;
  private readonly cpu0: NodeJS.CpuUsage;

  constructor(
    readonly maxWork: number,
    readonly seconds: number,
    cpuStart?: NodeJS.CpuUsage,
  ) {
    this.cpu0 = cpuStart ?? cpuUsage();
  }

  cpuMs(): number {
    const u = cpuUsage(this.cpu0);
    return (u.user + u.system) / 1000;
  }

  /** True once either limit is reached; remembers which. */
  spent(): boolean {
    if (this.stoppedBy) return true;
    if (this.work >= this.maxWork) this.stoppedBy = 'work';
    else if (this.work >= this.nextClock) {
      this.nextClock = this.work + CLOCK_EVERY;
      if (this.cpuMs() >= this.seconds * 1000) this.stoppedBy = 'time';
    }
    return this.stoppedBy !== null;
  }

  /** The share of the work budget spent, 0 .. 1: what the annealing's temperature follows. */
  progress(): number {
    return Math.min(1, this.work / this.maxWork);
  }
}
