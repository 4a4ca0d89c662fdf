import type { Model } from './model.ts';
import type { Rng } from './rng.ts';

/** Simulated annealing's temperatures, as multiples of the mean arc to a nearest neighbour. */
const T_START = 10;
const T_END = 0.1;

/**
 * SISR's acceptance: a candidate replaces the current solution when its cost is below the
 * current cost minus T·ln U, T falling geometrically from T_START to T_END times the mean arc to a
 * nearest neighbour (the paper's 100 → 1 on Solomon's scale, made scale-free for metres) as the
 * phase's work is spent.
 */
export class Annealing {
  private readonly t0: number;
  private readonly tEnd: number;

  constructor(m: Model) {
    const scale = meanNearestArc(m);
    this.t0 = T_START * scale;
    this.tEnd = T_END * scale;
  }

  accepts(candidate: number, current: number, progress: number, rng: Rng): boolean {
    const temperature = this.t0 * Math.pow(this.tEnd / this.t0, progress);
    return candidate < current - temperature * Math.log(rng.next());
  }
}

/**
 * Fleet minimisation's acceptance (Christiaens & Vanden Berghe 2020, section 6): fewer customers
 * left out, or customers left out less often before (their summed absences), so the search keeps
 * pushing the customers that are hard to place into the routes.
 */
export const acceptsByAbsences = (candidateOut: number, candidateAbsences: number, currentOut: number, currentAbsences: number): boolean =>
  candidateOut < currentOut || candidateAbsences < currentAbsences;

/** The temperature's unit: the mean over customers of the arc to the nearest other customer. */
function meanNearestArc(m: Model): number {
  if (m.nbCount === 0) return 1;
  let sum = 0;
  for (let c = 1; c <= m.n; c++) sum += m.arc[c * m.size + m.neighbours[c * m.nbCount]];
  const mean = sum / m.n;
  return mean > 0 ? mean : 1;
}
