/**
 * The travel model (decisions 15), one for planning and for tracking: the great-circle distance
 * (haversine on a sphere of the mean Earth radius) at the tenant's one average speed. No roads:
 * a preview's times are as good as this model, and a tracking ETA says the same as the plan.
 */
export const EARTH_RADIUS_METERS = 6_371_008.8;

export interface Point {
  latitude: number;
  longitude: number;
}

const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in metres, unrounded. */
export const greatCircleMeters = (a: Point, b: Point): number => {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
};

/** The reported distance: whole metres, rounded. */
export const legMeters = (a: Point, b: Point): number => Math.round(greatCircleMeters(a, b));

/** The travel time of a leg: its unrounded distance at `speedKmh`, rounded up to the whole second. */
export const legSeconds = (a: Point, b: Point, speedKmh: number): number => Math.ceil((greatCircleMeters(a, b) * 3.6) / speedKmh);

/** How a preview names the model it was solved under (its `solver.travelModel`). */
export const travelModelName = (speedKmh: number): string => `haversine/${speedKmh}kmh/ceil-s`;

/**
 * The two matrices of a planning problem (shared/planning/problem.ts) for `points` (the depot
 * first, then each order): whole metres, and seconds. Row-major, `size * size`. The distance is
 * symmetric, so each pair is computed once.
 */
export const travelMatrices = (points: readonly Point[], speedKmh: number): { distance: Float64Array; duration: Float64Array } => {
  const size = points.length;
  const distance = new Float64Array(size * size);
  const duration = new Float64Array(size * size);
  for (let i = 0; i < size; i++) {
    for (let j = i + 1; j < size; j++) {
      const meters = greatCircleMeters(points[i], points[j]);
      const rounded = Math.round(meters);
      const seconds = Math.ceil((meters * 3.6) / speedKmh);
      distance[i * size + j] = distance[j * size + i] = rounded;
      duration[i * size + j] = duration[j * size + i] = seconds;
    }
  }
  return { distance, duration };
};
