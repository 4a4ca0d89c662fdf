import { routeOptimizer } from './optimizer/index.ts';
import type { RouteOptimizer } from './problem.ts';

let installed: RouteOptimizer | undefined;

/** The optimizer previews are solved with: the service's own, in process, unless a stand-in or another engine is installed. */
export const planningEngine = (): RouteOptimizer => installed ?? routeOptimizer;

/** The local stack installs the threaded one (infra/local/previews.ts); undefined goes back to the default. */
export const setPlanningEngine = (engine: RouteOptimizer | undefined): void => {
  installed = engine;
};
