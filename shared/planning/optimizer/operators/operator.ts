import type { Rng } from '../rng.ts';
import type { Solution } from '../solution.ts';
import type { Work } from '../work.ts';

/**
 * The operators' protocol, after PyVRP's search (`pyvrp/search/`: one operator a file behind a
 * small interface). A ruin takes customers out of the solution into `work.removed` and records the
 * routes it cut in `work.touched`; a recreate puts the removed (and earlier leftovers) back,
 * recording the routes it changed. Neither keeps state of its own: everything lives in the
 * solution and the search's `Work`.
 */
export interface Ruin {
  readonly name: string;
  apply(s: Solution, rng: Rng, w: Work): void;
}

export interface Recreate {
  readonly name: string;
  apply(s: Solution, rng: Rng, w: Work): void;
}
