/**
 * A synthetic day of a Santiago distributor (seeded, so every run asks for the same day): parcels
 * and beverage cases to addresses inside the city's built-up area, half of them with a 2-hour
 * window, a fleet of vans and trucks, and a depot in Quilicura.
 */

/** Gran Santiago's built-up area, roughly (lat, lon), clockwise from Quilicura: no Andes foothills, no fields. */
const URBAN_AREA: ReadonlyArray<readonly [number, number]> = [
  [-33.33, -70.75], // Quilicura
  [-33.33, -70.62], // Huechuraba
  [-33.36, -70.53], // Vitacura, Lo Barnechea's lower part
  [-33.42, -70.51], // Las Condes
  [-33.5, -70.53], // Peñalolén
  [-33.56, -70.54], // La Florida
  [-33.62, -70.56], // Puente Alto
  [-33.62, -70.7], // San Bernardo
  [-33.55, -70.8], // Maipú
  [-33.47, -70.8], // Maipú, Cerrillos
  [-33.4, -70.79], // Pudahuel
];
const BOUNDS = { south: -33.62, north: -33.33, west: -70.8, east: -70.5 };

export const DEPOT = {
  name: 'Bodega Quilicura',
  address: { text: 'Av. Presidente Eduardo Frei Montalva 9950, Quilicura', latitude: -33.3575, longitude: -70.727 },
};

/** mulberry32: small, fast and the same on every machine for a given seed. */
export const random = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const inside = (lat: number, lon: number): boolean => {
  let within = false;
  for (let i = 0, j = URBAN_AREA.length - 1; i < URBAN_AREA.length; j = i++) {
    const [yi, xi] = URBAN_AREA[i]!;
    const [yj, xj] = URBAN_AREA[j]!;
    if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) within = !within;
  }
  return within;
};

const round = (value: number, places: number): number => Math.round(value * 10 ** places) / 10 ** places;
const hhmm = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export interface CityOrder {
  reference: string;
  recipient: { name: string };
  address: { text: string; latitude: number; longitude: number };
  serviceDate: string;
  timeWindows: Array<{ from: string; to: string }>;
  serviceMinutes: number;
  load: { weightKg: number; volumeM3: number };
}

/**
 * `count` orders: 80% parcels (1-30 kg, 0.005-0.15 m³, 4 minutes at the door), 20% beverage cases
 * (5-25 cases of 12 kg and 0.025 m³, 10 minutes to unload). Half have one 2-hour window starting
 * on the half hour between 09:00 and 15:00 (so it closes by 17:00); the rest take any time.
 */
export const cityOrders = (count: number, seed: number, serviceDate: string): CityOrder[] => {
  const next = random(seed);
  const orders: CityOrder[] = [];
  for (let i = 0; i < count; i += 1) {
    let lat: number;
    let lon: number;
    do {
      lat = BOUNDS.south + next() * (BOUNDS.north - BOUNDS.south);
      lon = BOUNDS.west + next() * (BOUNDS.east - BOUNDS.west);
    } while (!inside(lat, lon));
    const cases = next() < 0.2 ? 5 + Math.floor(next() * 21) : 0;
    const load = cases > 0 ? { weightKg: cases * 12, volumeM3: round(cases * 0.025, 3) } : { weightKg: round(1 + next() * 29, 1), volumeM3: round(0.005 + next() * 0.145, 3) };
    const windowed = next() < 0.5;
    const from = 9 * 60 + 30 * Math.floor(next() * 13);
    orders.push({
      reference: `SCL-${String(i + 1).padStart(4, '0')}`,
      recipient: { name: `Cliente ${i + 1}` },
      address: { text: `Punto ${i + 1}, Santiago`, latitude: round(lat, 6), longitude: round(lon, 6) },
      serviceDate,
      timeWindows: windowed ? [{ from: hhmm(from), to: hhmm(from + 120) }] : [],
      serviceMinutes: cases > 0 ? 10 : 4,
      load,
    });
  }
  return orders;
};

export interface CityVehicle {
  plate: string;
  label: string;
  class: 'van' | 'cargo';
  capacity: { weightKg: number; volumeM3: number };
}

/** 30 vans of 1,200 kg / 8 m³ and 10 trucks of 4,000 kg / 25 m³ (76 t in all; the day of seed 1 asks for 48 t and 136 m³). */
export const cityFleet = (): CityVehicle[] => [
  ...Array.from({ length: 30 }, (_, i) => ({ plate: `VAN${String(i + 1).padStart(3, '0')}`, label: `Furgón ${i + 1}`, class: 'van' as const, capacity: { weightKg: 1200, volumeM3: 8 } })),
  ...Array.from({ length: 10 }, (_, i) => ({ plate: `TRK${String(i + 1).padStart(3, '0')}`, label: `Camión ${i + 1}`, class: 'cargo' as const, capacity: { weightKg: 4000, volumeM3: 25 } })),
];

export const SHIFT = { shiftStart: '08:00', shiftEnd: '18:00' };
