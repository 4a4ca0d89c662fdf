import type { StopRecord } from '../field/records.ts';

/**
 * Which views of a route a batch of item changes can move: the views of the named stops, and
 * those of the open stops after a sequence (their stops-before count and travel time count the
 * open stops ahead of them). `all` is every view. A 300-stop route rewrote its 300 views for each
 * change of any item in it; a stop's outcome moves its own view and those of the stops behind it.
 */
export type RouteScope = 'all' | { stopIds: Set<string>; openAfter: number };

const NONE = Number.POSITIVE_INFINITY;

export const stopsScope = (stopIds: Iterable<string>): RouteScope => ({ stopIds: new Set(stopIds), openAfter: NONE });

/** A position moves the open stops' views (the position, travel time and direction they show); closed ones show none. */
export const positionScope = (): RouteScope => ({ stopIds: new Set(), openAfter: Number.NEGATIVE_INFINITY });

export const mergeScopes = (a: RouteScope | undefined, b: RouteScope): RouteScope => {
  if (!a) return b;
  if (a === 'all' || b === 'all') return 'all';
  return { stopIds: new Set([...a.stopIds, ...b.stopIds]), openAfter: Math.min(a.openAfter, b.openAfter) };
};

type Image = Record<string, unknown> | undefined;

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The route's fields a view reads (projection.ts): whether it moves, whose driver, which day. */
const ROUTE_FIELDS = ['state', 'workerId', 'serviceDate'] as const;

/** A route's item: a change of what the views read moves all of them; its version, summary or vehicle none. */
export const routeChangeScope = (oldImage: Image, newImage: Image): RouteScope | null => {
  if (!oldImage || !newImage) return 'all';
  return ROUTE_FIELDS.some((field) => !same(oldImage[field], newImage[field])) ? 'all' : null;
};

/** The stop's own fields its view shows (projection.ts, viewOfStop); evidence, receipt and version show nowhere. */
const OWN_FIELDS = ['state', 'outcomeAt', 'orderId', 'reference', 'trackingToken', 'plannedArrivalAt', 'sequence', 'address'] as const;

const open = (image: Image): boolean => image?.state === 'pending';

/**
 * A stop's item: its own view if a field it shows changed; the open stops behind it as well when
 * it opened or closed, or, open, moved in the sequence or changed its address (their count of stops
 * before and their travel through it).
 */
export const stopChangeScope = (oldImage: Image, newImage: Image): RouteScope | null => {
  const image = (newImage ?? oldImage)!;
  const changed = (field: string) => !oldImage || !newImage || !same(oldImage[field], newImage[field]);
  if (!OWN_FIELDS.some(changed)) return null;
  const behind = open(oldImage) !== open(newImage) || ((open(oldImage) || open(newImage)) && (changed('sequence') || changed('address')));
  const sequences = [oldImage?.sequence, newImage?.sequence].filter((s): s is number => typeof s === 'number');
  return { stopIds: new Set([image.stopId as string]), openAfter: behind && sequences.length > 0 ? Math.min(...sequences) : NONE };
};

/**
 * Whether a stop's view is one the scope names. On a cancelled route an open stop's view is its
 * order's (it is being released), which reads no other stop: only the named ones are rebuilt.
 */
export const inScope = (scope: RouteScope | undefined, stop: StopRecord, routeState: string): boolean =>
  !scope ||
  scope === 'all' ||
  scope.stopIds.has(stop.id) ||
  (routeState !== 'cancelled' && stop.state === 'pending' && stop.sequence > scope.openAfter);
