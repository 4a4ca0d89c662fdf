const EARTH_RADIUS_KM = 6371;
const rad = (deg: number) => (deg * Math.PI) / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

/** Great-circle distance; "straight-line" in decisions 7. */
export const distanceKm = (a: Point, b: Point): number => {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
};

/** Initial bearing from a to b in degrees, 0 = north, clockwise. */
export const bearingDeg = (a: Point, b: Point): number => {
  const y = Math.sin(rad(b.longitude - a.longitude)) * Math.cos(rad(b.latitude));
  const x = Math.cos(rad(a.latitude)) * Math.sin(rad(b.latitude)) - Math.sin(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.cos(rad(b.longitude - a.longitude));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
};

/** About 100 m: the precision decisions 7 allows for a public position. */
export const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** Upper bounds of the distance bands the page draws (km); beyond the last is the outer band. */
export const DISTANCE_BANDS_KM = [0.5, 1, 2, 5] as const;

/**
 * Where the vehicle is seen from the destination, coarse on purpose (8 directions, 5 bands):
 * the page draws it without revealing the address more precisely than the position already does.
 */
export const relativeTo = (destination: Point, vehicle: Point): { direction: number; band: number } => {
  const km = distanceKm(destination, vehicle);
  const band = DISTANCE_BANDS_KM.findIndex((limit) => km < limit);
  return { direction: Math.round(bearingDeg(destination, vehicle) / 45) % 8, band: band === -1 ? DISTANCE_BANDS_KM.length : band };
};
