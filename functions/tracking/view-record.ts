import type { Phase } from './settings.ts';

/**
 * The projection's item, one per tracking token. It holds only what the public view needs:
 * the recipient's name, phone, e-mail and address never reach it (the position is already
 * rounded, and the vehicle's place relative to the address is kept coarse).
 */
export interface ViewRecord {
  token: string;
  tenantId: string;
  orderId: string;
  companyName: string;
  timeZone: string;
  reference: string;
  serviceDate: string;
  phase: Phase;
  /** Open stops before this one on its route; null while the order is on no route. */
  stopsBefore: number | null;
  driverFirstName: string | null;
  /** Rounded to 3 decimals; only while moving. */
  position: { latitude: number; longitude: number; recordedAt: string } | null;
  /** Seconds from the position to this stop through the stops before (decisions 7). */
  travelSeconds: number | null;
  relative: { direction: number; band: number } | null;
  closedAt: string | null;
  /** The stop's dispatch guide folio once issued or provider_recorded (issue 17); nothing else of the guide. */
  dispatchGuideNumber: string | null;
  /** The stop's planned arrival (a plan from a preview, decisions 15): the ETA before the route starts. */
  plannedArrivalAt: string | null;
  /**
   * The window shown before the start (decisions 17): around the planned start of service, inside
   * the order's time window. Null on views built before it, which fall back to the planned arrival.
   */
  plannedWindow: { from: string; to: string } | null;
  /** When the projection read the state this view was made from; an older build never wins. */
  builtAt: string;
}

export const toViewRecord = (item: Record<string, unknown>): ViewRecord => ({
  token: item.token as string,
  tenantId: item.tenantId as string,
  orderId: item.orderId as string,
  companyName: item.companyName as string,
  timeZone: item.timeZone as string,
  reference: item.reference as string,
  serviceDate: item.serviceDate as string,
  phase: item.phase as Phase,
  stopsBefore: (item.stopsBefore as number | undefined) ?? null,
  driverFirstName: (item.driverFirstName as string | undefined) ?? null,
  position: (item.position as ViewRecord['position'] | undefined) ?? null,
  travelSeconds: (item.travelSeconds as number | undefined) ?? null,
  relative: (item.relative as ViewRecord['relative'] | undefined) ?? null,
  closedAt: (item.closedAt as string | undefined) ?? null,
  dispatchGuideNumber: (item.dispatchGuideNumber as string | undefined) ?? null,
  plannedArrivalAt: (item.plannedArrivalAt as string | undefined) ?? null,
  plannedWindow: (item.plannedWindow as ViewRecord['plannedWindow'] | undefined) ?? null,
  builtAt: item.builtAt as string,
});
