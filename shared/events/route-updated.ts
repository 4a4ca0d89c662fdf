import type { Write } from '../table/transaction.ts';
import type { OutboxEvent } from './outbox.ts';
import { outboxEvent } from './outbox.ts';

/** What the event needs of a route after its change (a field route record fits). */
export interface UpdatedRoute {
  id: string;
  serviceDate: string;
  /** The route's version after the change. */
  version: number;
}

/** What the event needs of a stop: its order, its place and its state (a field stop record fits). */
export interface UpdatedStop {
  orderId: string;
  sequence: number;
  state: string;
}

/**
 * The outbox write of `field.route.updated` (decisions 17) for a route changed in place: a plan
 * applied over it, or its open stops re-ordered on the road. It joins the change's transaction.
 * `stopCount` and `orderIds` are every stop on the route after the change, in sequence; a stop
 * whose state is `removed` has left the route and is not counted. Resequencing passes no
 * added or removed orders.
 */
export const routeUpdatedEvent = (
  tenantId: string,
  route: UpdatedRoute,
  stops: readonly UpdatedStop[],
  now: Date,
  change: { addedOrderIds?: readonly string[]; removedOrderIds?: readonly string[] } = {},
): { event: OutboxEvent<'field.route.updated'>; write: Write } => {
  const onRoute = stops.filter((s) => s.state !== 'removed').sort((a, b) => a.sequence - b.sequence);
  return outboxEvent(
    tenantId,
    'field.route.updated',
    {
      routeId: route.id,
      serviceDate: route.serviceDate,
      version: route.version,
      stopCount: onRoute.length,
      orderIds: onRoute.map((s) => s.orderId),
      addedOrderIds: [...(change.addedOrderIds ?? [])],
      removedOrderIds: [...(change.removedOrderIds ?? [])],
    },
    now,
  );
};
