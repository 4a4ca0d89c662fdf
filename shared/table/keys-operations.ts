import { shardOf, tenantPk } from './keys.ts';

/** How many partitions the previews the sweeper watches are spread over (it reads them all; only ever raise it, to a power of two). */
export const PREVIEW_DUE_SHARDS = 8;
/** The preview sweeper's index partitions are `PREVIEWDUE#<shard>`. */
export const PREVIEW_DUE_PARTITION_PREFIX = 'PREVIEWDUE#';

/**
 * Key builders of the operations area (orders, plans, routes, stops, tracking views), beside
 * keys.ts so that the two areas can grow without editing each other's file.
 */
const routePartition = (tenantId: string, routeId: string) => `${tenantPk(tenantId)}#ROUTE#${routeId}`;

export const opsKeys = {
  order: (tenantId: string, orderId: string) => ({ pk: tenantPk(tenantId), sk: `ORDER#${orderId}` }),
  orderPrefix: 'ORDER#',
  /** gsi1: a service date's orders, for a preview of "every pending order of the day" (decisions 15). */
  ordersByDate: (tenantId: string, serviceDate: string, orderId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#ORDERS#${serviceDate}`, gsi1sk: `ORDER#${orderId}` }),
  plan: (tenantId: string, planId: string) => ({ pk: tenantPk(tenantId), sk: `PLAN#${planId}` }),
  /** gsi1: a service date's plans, whose orders a preview of the day leaves out (decisions 15). */
  plansByDate: (tenantId: string, serviceDate: string, planId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PLANS#${serviceDate}`, gsi1sk: `PLAN#${planId}` }),
  /** Guards "one route per planned vehicle route": written with the route, never removed. */
  planRouteClaim: (tenantId: string, planId: string, vehicleRouteId: string) => ({ pk: `${tenantPk(tenantId)}#PLAN#${planId}`, sk: `VROUTE#${vehicleRouteId}` }),
  route: (tenantId: string, routeId: string) => ({ pk: tenantPk(tenantId), sk: `ROUTE#${routeId}` }),
  /** decisions 17: the plan changing an assigned route in place right now (one at a time; a lease). */
  routeChangeLock: (tenantId: string, routeId: string) => ({ pk: tenantPk(tenantId), sk: `ROUTECHANGE#${routeId}` }),
  /** A route's stops and its last position share one partition: one Query reads them all. */
  routePartition,
  stop: (tenantId: string, routeId: string, stopId: string) => ({ pk: routePartition(tenantId, routeId), sk: `STOP#${stopId}` }),
  stopPrefix: 'STOP#',
  position: (tenantId: string, routeId: string) => ({ pk: routePartition(tenantId, routeId), sk: 'POSITION' }),
  /**
   * A resequenced route's order (decisions 17): every stop's sequence, planned arrival and late
   * flag, written with the route's version in one transaction; it overrides what the stop items hold.
   */
  routeSequence: (tenantId: string, routeId: string) => ({ pk: routePartition(tenantId, routeId), sk: 'SEQUENCE' }),
  /**
   * A stop's dispatch guide (issue 17): the guard that allows one live guide per stop, and the
   * guide's state and folio as the stop shows them (kept by every move of its intent).
   */
  stopGuide: (tenantId: string, routeId: string, stopId: string) => ({ pk: routePartition(tenantId, routeId), sk: `GUIDE#${stopId}` }),
  stopGuidePrefix: 'GUIDE#',
  /** A stop's receipt of goods (decisions 16): its own item, so a TTL erases it 5 years after delivery. */
  stopReceipt: (tenantId: string, routeId: string, stopId: string) => ({ pk: routePartition(tenantId, routeId), sk: `RECEIPT#${stopId}` }),
  /** gsi1: a driver's routes by service date, for what a driver may do on a given day (odometer readings). */
  routeByWorker: (tenantId: string, workerId: string, serviceDate: string, routeId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#WORKER#${workerId}`, gsi1sk: `ROUTE#${serviceDate}#${routeId}` }),
  /** A route preview (decisions 15); gsi1 lists a service date's previews, newest first (ids are UUID v7). */
  preview: (tenantId: string, previewId: string) => ({ pk: tenantPk(tenantId), sk: `PREVIEW#${previewId}` }),
  previewsByDate: (tenantId: string, serviceDate: string, previewId: string) => ({ gsi1pk: `${tenantPk(tenantId)}#PREVIEWS#${serviceDate}`, gsi1sk: `PREVIEW#${previewId}` }),
  /**
   * gsi2 (sparse): a preview the sweeper must look at by `dueAt`, set while it is queued or
   * solving and removed when it ends (functions/routing/previews/sweep.ts).
   */
  previewDue: (previewId: string, dueAt: string) => ({ gsi2pk: `${PREVIEW_DUE_PARTITION_PREFIX}${shardOf(previewId, PREVIEW_DUE_SHARDS)}`, gsi2sk: `${dueAt}#${previewId}` }),
  /** A depot (decisions 15). */
  depot: (tenantId: string, depotId: string) => ({ pk: tenantPk(tenantId), sk: `DEPOT#${depotId}` }),
  depotPrefix: 'DEPOT#',
  /** The public tracking view, one per link token; the token is the only way in. */
  trackingView: (token: string) => ({ pk: `TRACK#${token}`, sk: 'VIEW' }),
} as const;
