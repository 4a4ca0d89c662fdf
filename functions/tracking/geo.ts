import { greatCircleMeters, type Point } from '../../shared/planning/travel.ts';

export type { Point };

const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance; "straight-line" in decisions 7, the travel model's distance (decisions 15). */
export const distanceKm = (a: Point, b: Point): number => greatCircleMeters(a, b) / 1000;

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
