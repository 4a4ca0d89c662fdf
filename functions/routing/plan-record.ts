import type { RoutePlan } from './schemas.ts';

/** The stored plan (plans.ts reads and writes it; plan-from-preview.ts builds one): below both. */
export type PlanRecord = RoutePlan & {
  plannedArrivals: Record<string, string>;
  /**
   * decisions 17, a plan from a preview over assigned routes: every route the preview named, with
   * its vehicle and the version it had then (a named route left with no order has no route in
   * the plan, and its apply cancels it). Empty otherwise.
   */
  changesRoutes: Array<{ routeId: string; vehicleId: string; version: number }>;
  /** Routes assigned from the plan so far (POST /v1/field/routes counts them), so a discard sees one that lands meanwhile. */
  assignments: number;
};
