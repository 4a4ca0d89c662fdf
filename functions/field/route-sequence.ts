import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';

/** The item kind of a resequenced route's order, in the route's partition. */
export const ROUTE_SEQUENCE_ENTITY = 'route-sequence';

/** Where a stop stands after a resequence: what the sequence item says of it. */
export interface SequencedStop {
  stopId: string;
  sequence: number;
  plannedArrivalAt: string | null;
  late: boolean;
}

export interface RouteSequence {
  /** The route's version this order was written with. */
  routeVersion: number;
  stops: SequencedStop[];
}

/**
 * A resequence rewrites the place of up to 300 stops, three times what one DynamoDB transaction
 * holds. So the new order is one item (`SEQUENCE`, about 30 KB at 300 stops) written in the same
 * transaction as the route's new version and its event: whole or not at all, with no chunks to
 * crash between. Every reader of stops (readRoutePartition, getStopRecord) lays it over the stop
 * items, which keep the order of the assignment; a stop written later (its outcome) keeps the
 * sequence it read, the one laid over it.
 */
export const routeSequenceWrite = (tenantId: string, routeId: string, sequence: RouteSequence, at: string): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...opsKeys.routeSequence(tenantId, routeId), entity: ROUTE_SEQUENCE_ENTITY, tenantId, routeId, ...sequence, updatedAt: at },
    },
  },
});

export const toRouteSequence = (item: Record<string, unknown> | undefined): RouteSequence | null =>
  item ? { routeVersion: item.routeVersion as number, stops: item.stops as SequencedStop[] } : null;

/** The stops with the sequence item laid over them (as they are without one). */
export const sequenced = <S extends { id: string; sequence: number; plannedArrivalAt: string | null; late: boolean }>(stops: S[], sequence: RouteSequence | null): S[] => {
  if (!sequence) return stops;
  const placed = new Map(sequence.stops.map((s) => [s.stopId, s]));
  return stops.map((stop) => {
    const place = placed.get(stop.id);
    return place ? { ...stop, sequence: place.sequence, plannedArrivalAt: place.plannedArrivalAt, late: place.late } : stop;
  });
};
