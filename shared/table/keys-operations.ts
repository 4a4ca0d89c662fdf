import { tenantPk } from './keys.ts';

/**
 * Key builders of the operations area (orders, plans, routes, stops, tracking views), beside
 * keys.ts so that the two areas can grow without editing each other's file.
 */
const routePartition = (tenantId: string, routeId: string) => `${tenantPk(tenantId)}#ROUTE#${routeId}`;

export const opsKeys = {
  order: (tenantId: string, orderId: string) => ({ pk: tenantPk(tenantId), sk: `ORDER#${orderId}` }),
  orderPrefix: 'ORDER#',
  plan: (tenantId: string, planId: string) => ({ pk: tenantPk(tenantId), sk: `PLAN#${planId}` }),
  /** Guards "one route per planned vehicle route": written with the route, never removed. */
  planRouteClaim: (tenantId: string, planId: string, vehicleRouteId: string) => ({ pk: `${tenantPk(tenantId)}#PLAN#${planId}`, sk: `VROUTE#${vehicleRouteId}` }),
  route: (tenantId: string, routeId: string) => ({ pk: tenantPk(tenantId), sk: `ROUTE#${routeId}` }),
  /** A route's stops and its last position share one partition: one Query reads them all. */
  routePartition,
  stop: (tenantId: string, routeId: string, stopId: string) => ({ pk: routePartition(tenantId, routeId), sk: `STOP#${stopId}` }),
  stopPrefix: 'STOP#',
  position: (tenantId: string, routeId: string) => ({ pk: routePartition(tenantId, routeId), sk: 'POSITION' }),
  /**
   * A stop's dispatch guide (issue 17): the guard that allows one live guide per stop, and the
   * guide's state and folio as the stop shows them (kept by every move of its intent).
   */
  stopGuide: (tenantId: string, routeId: string, stopId: string) => ({ pk: routePartition(tenantId, routeId), sk: `GUIDE#${stopId}` }),
  stopGuidePrefix: 'GUIDE#',
  /** gsi1: a driver's routes by service date, for what a driver may do on a given day (odometer readings). */
  routeByWorker: (tenantId: string, workerId: string, serviceDate: string, routeId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#WORKER#${workerId}`, gsi1sk: `ROUTE#${serviceDate}#${routeId}` }),
  /** A route preview (decisions 15); gsi1 lists a service date's previews, newest first (ids are UUID v7). */
  preview: (tenantId: string, previewId: string) => ({ pk: tenantPk(tenantId), sk: `PREVIEW#${previewId}` }),
  previewsByDate: (tenantId: string, serviceDate: string, previewId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PREVIEWS#${serviceDate}`, gsi1sk: `PREVIEW#${previewId}` }),
  /** A depot (decisions 15). */
  depot: (tenantId: string, depotId: string) => ({ pk: tenantPk(tenantId), sk: `DEPOT#${depotId}` }),
  depotPrefix: 'DEPOT#',
  /** The public tracking view, one per link token; the token is the only way in. */
  trackingView: (token: string) => ({ pk: `TRACK#${token}`, sk: 'VIEW' }),
} as const;
