import * as v from 'valibot';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError } from '../../shared/errors.ts';
import { routeUpdatedEvent } from '../../shared/events/route-updated.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { Latitude, Longitude } from '../../shared/http/schemas.ts';
import { resequence, seedOf, type ResequenceStop } from '../../shared/planning/resequence.ts';
import type { Point } from '../../shared/planning/travel.ts';
import { ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { DEFAULT_TIME_ZONE, DEFAULT_TRACKING_SPEED_KMH, DEFAULT_TRACKING_STOP_MINUTES, getTenant } from '../../shared/tenancy/tenants.ts';
import { findOrders } from '../orders/records.ts';
import { dayClock } from '../routing/previews/day-clock.ts';
import { assertMayAct } from './access.ts';
import { getRouteRecord, readRoutePartition, withStops, type PositionRecord, type StopRecord } from './records.ts';
import { routeSequenceWrite, type SequencedStop } from './route-sequence.ts';
import { requireRouteState, routeWrite } from './route-writes.ts';
import type { Route, RouteRecord } from './schemas.ts';

export const ResequenceBody = v.strictObject({
  from: v.optional(v.strictObject({ latitude: Latitude, longitude: Longitude })),
});
export type ResequenceBody = v.InferOutput<typeof ResequenceBody>;

const MINUTE_MS = 60_000;

/**
 * Where the vehicle is (decisions 17): the position named, else the route's last position, else
 * the stop closed last (by its outcome's time), else the first open stop.
 */
const startingPoint = (from: ResequenceBody['from'], position: PositionRecord | null, stops: StopRecord[], open: StopRecord[]): Point | null => {
  if (from) return from;
  if (position) return position;
  const closed = stops.filter((s) => (s.state === 'delivered' || s.state === 'failed') && s.outcomeAt).sort((a, b) => Date.parse(b.outcomeAt!) - Date.parse(a.outcomeAt!));
  const stop = closed[0] ?? open[0];
  return stop ? stop.address : null;
};

/**
 * Re-orders a started route's open stops from where the vehicle is at the request's minute:
 * most windows kept, then least time (shared/planning/resequence.ts). Closed stops keep their
 * sequence; the open ones take the sequences the open stops had, in the new order. The new order
 * is one item written with the route's next version and `field.route.updated` (route-sequence.ts).
 */
export const resequenceRoute = async (caller: Caller, routeId: string, body: ResequenceBody): Promise<{ route: Route; writes: Write[] }> => {
  const { tenantId } = caller;
  const current = await getRouteRecord(tenantId, routeId);
  assertMayAct(caller, current);
  requireRouteState(current, ['started'], 'be re-ordered');
  const [{ stops, position }, tenant] = await Promise.all([readRoutePartition(tenantId, routeId), getTenant(tenantId)]);
  const open = stops.filter((s) => s.state === 'pending');
  const orders = await findOrders(tenantId, open.map((s) => s.orderId));
  const clock = dayClock(current.serviceDate, tenant?.timeZone ?? DEFAULT_TIME_ZONE);
  const stopMinutes = tenant?.trackingStopMinutes ?? DEFAULT_TRACKING_STOP_MINUTES;
  // The request's minute: the same stops, start and minute give the same order and times.
  const minute = Math.floor(caller.now.getTime() / MINUTE_MS) * MINUTE_MS;
  const startTime = Math.round((minute - Date.parse(clock.dateTime(0))) / 1000);
  const problemStops: ResequenceStop[] = open.map((stop) => {
    const order = orders.get(stop.orderId);
    return {
      latitude: stop.address.latitude,
      longitude: stop.address.longitude,
      windows: (order?.timeWindows ?? []).map((w) => [clock.seconds(w.from), clock.seconds(w.to)] as const),
      service: (order?.serviceMinutes ?? stopMinutes) * 60,
    };
  });
  const start = startingPoint(body.from, position, stops, open);
  const answer = start
    ? resequence({ start, startTime, stops: problemStops, speedKmh: tenant?.trackingSpeedKmh ?? DEFAULT_TRACKING_SPEED_KMH, seed: seedOf(`${routeId}|${new Date(minute).toISOString()}`) })
    : { stops: [] };

  // The open stops' sequences, ascending, are the places the new order fills.
  const places = open.map((s) => s.sequence).sort((a, b) => a - b);
  const placed = new Map<string, SequencedStop>(
    answer.stops.map((s, k) => {
      const stop = open[s.stop];
      return [stop.id, { stopId: stop.id, sequence: places[k], plannedArrivalAt: clock.dateTime(s.arrival), late: s.late }];
    }),
  );
  const reordered = stops
    .map((stop) => {
      const place = placed.get(stop.id);
      return place ? { ...stop, sequence: place.sequence, plannedArrivalAt: place.plannedArrivalAt, late: place.late } : stop;
    })
    .sort((a, b) => a.sequence - b.sequence);

  const at = nowIso(caller.now);
  const next: RouteRecord = { ...current, version: current.version + 1, updatedAt: at };
  const sequence = {
    routeVersion: next.version,
    stops: reordered.map((s) => ({ stopId: s.id, sequence: s.sequence, plannedArrivalAt: s.plannedArrivalAt, late: s.late })),
  };
  return {
    route: withStops(next, reordered),
    writes: [
      // Another change of the route since the read (a finish, a cancel, another resequence): run
      // again from what it is now, which answers 409 invalid_state if it is no longer started.
      { ...routeWrite(tenantId, next, current.version), onConditionFailed: (old) => (old ? new ReadOutdatedError() : new NotFoundError('No route with this id.')) },
      routeSequenceWrite(tenantId, routeId, sequence, at),
      routeUpdatedEvent(tenantId, next, reordered, caller.now).write,
    ],
  };
};
