import type { OrderRecord } from '../orders/records.ts';
import type { StopRecord } from './records.ts';

/*
 * What a route changed in place (decisions 17) is and what it stages: route-change.ts writes it,
 * route-change-settle.ts finishes it, so the shape sits below both.
 */

export interface RouteChange {
  tenantId: string;
  planId: string;
  /** The plan's route that the route becomes; a route the plan leaves with no order has `R-{routeId}`. */
  vehicleRouteId: string;
  routeId: string;
  /** The route's version when the plan's preview read it. */
  version: number;
  /** The route's orders after the change, in order (empty: the route is cancelled). */
  orderIds: string[];
  plannedArrivals: Record<string, string>;
  /** Every route the plan changes: an added order may come from one of them. */
  planRoutes: ReadonlySet<string>;
  fingerprint: string;
  token: string;
  now: Date;
}

export interface Staging {
  kept: Array<{ stop: StopRecord; sequence: number }>;
  removed: StopRecord[];
  added: Array<{ stop: StopRecord; order: OrderRecord; stored: OrderRecord }>;
  /** Removed orders still stored on this route: marked, and written back once the change stands. */
  leaving: OrderRecord[];
}
