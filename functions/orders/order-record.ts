import { opsKeys } from '../../shared/table/keys-operations.ts';
import type { OrderLineRecord } from './goods-schemas.ts';
import { storedPlanning } from './planning.ts';
import type { Order, OrderState } from './schemas.ts';

/*
 * The stored order: its record, its item and the hold an unfinished assignment leaves on it. The
 * readers (records.ts) resolve orders through assignment-holds.ts and route-release.ts, which
 * write orders back: both sides need this shape, so it sits below them.
 */

/**
 * An order moved by a route assignment that has not finished (docs/long-routes.md): the order is
 * stored `assigned` to a route whose item does not exist yet, and carries what it was before.
 * Readers show it as it was until the route exists; a rollback writes it back from here.
 */
export interface AssignmentHold {
  routeId: string;
  stopId: string;
  planId: string;
  vehicleRouteId: string;
  /** The order's version and updatedAt before the assignment moved it. */
  version: number;
  updatedAt: string;
  /**
   * decisions 17: a plan applied over an existing route (functions/field/route-change.ts). The
   * route exists already, so the move stands once the plan route's claim reads `assigned`; until
   * then the order reads as it was: pending, or on the route `from` it left.
   */
  inPlace?: boolean;
  from?: { routeId: string; stopId: string };
}

export const holdOf = (item: Record<string, unknown>): AssignmentHold | undefined => (item.assigning as AssignmentHold | undefined) ?? undefined;

/**
 * The stored order: the public shape plus the link token (the URL is made when answering) and
 * the provider ids of its customer and variants, resolved at create so a guide needs no reads.
 * The planning fields (decisions 15) are spelled out: the preview codes against these names.
 */
export interface OrderRecord extends Omit<Order, 'trackingUrl' | 'dispatchGuide' | 'lines' | 'timeWindows' | 'serviceMinutes' | 'load' | 'skills'> {
  trackingToken: string;
  lines: OrderLineRecord[];
  customerExternalId: string | null;
  /** Ascending, disjoint; empty means any time. */
  timeWindows: { from: string; to: string }[];
  /** Resolved at creation (the tenant's trackingStopMinutes unless given); orders stored before: 5. */
  serviceMinutes: number;
  load: { weightKg: number; volumeM3: number };
  skills: string[];
  /** As stored: the unfinished assignment that moved it (assignment-holds.ts). */
  hold?: AssignmentHold;
  /** As read: the order is pending, but an unfinished assignment holds it; writers must not take it. */
  heldBy?: AssignmentHold;
  /** As stored: the route whose cancel marked it, to be written back to pending (route-release.ts). */
  releasing?: string;
  /** As stored: the plan applied in place that takes it off `releasing` (decisions 17), and when. */
  releasingChange?: { planId: string; vehicleRouteId: string; at: string };
  /** As read: its route was cancelled and it reads pending, though not yet written back. */
  releasedFrom?: string;
}

/** Orders stored before goods existed read as orders without goods. */
const toAddress = (stored: Record<string, unknown>): OrderRecord['address'] => ({
  text: stored.text as string,
  latitude: stored.latitude as number,
  longitude: stored.longitude as number,
  municipality: (stored.municipality as string | null | undefined) ?? null,
  city: (stored.city as string | null | undefined) ?? null,
});

export const toOrderRecord = (item: Record<string, unknown>): OrderRecord => ({
  id: item.orderId as string,
  reference: item.reference as string,
  recipient: item.recipient as OrderRecord['recipient'],
  address: toAddress(item.address as Record<string, unknown>),
  serviceDate: item.serviceDate as string,
  lines: (item.lines as OrderLineRecord[] | undefined) ?? [],
  customerId: (item.customerId as string | undefined) ?? null,
  customerExternalId: (item.customerExternalId as string | undefined) ?? null,
  connectionId: (item.connectionId as string | undefined) ?? null,
  ...storedPlanning(item),
  state: item.state as OrderState,
  trackingToken: item.trackingToken as string,
  routeId: (item.routeId as string | undefined) ?? null,
  stopId: (item.stopId as string | undefined) ?? null,
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
  cancelledAt: (item.cancelledAt as string | undefined) ?? null,
  hold: holdOf(item),
  releasing: (item.releasing as string | undefined) ?? undefined,
  releasingChange: (item.releasingChange as OrderRecord['releasingChange'] | undefined) ?? undefined,
});

export const orderItem = (tenantId: string, order: OrderRecord) => ({
  ...opsKeys.order(tenantId, order.id),
  ...opsKeys.ordersByDate(tenantId, order.serviceDate, order.id),
  entity: 'order',
  tenantId,
  orderId: order.id,
  reference: order.reference,
  recipient: order.recipient,
  address: order.address,
  serviceDate: order.serviceDate,
  lines: order.lines,
  customerId: order.customerId ?? undefined,
  customerExternalId: order.customerExternalId ?? undefined,
  connectionId: order.connectionId ?? undefined,
  timeWindows: order.timeWindows,
  serviceMinutes: order.serviceMinutes,
  load: order.load,
  skills: order.skills,
  state: order.state,
  trackingToken: order.trackingToken,
  routeId: order.routeId ?? undefined,
  stopId: order.stopId ?? undefined,
  version: order.version,
  createdAt: order.createdAt,
  updatedAt: order.updatedAt,
  cancelledAt: order.cancelledAt ?? undefined,
});
