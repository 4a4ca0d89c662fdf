import { describe, expect, it } from 'vitest';
import { dayClock } from '../../../functions/routing/previews/day-clock.ts';
import { distanceKm } from '../../../functions/tracking/geo.ts';
import { EARTH_RADIUS_METERS, greatCircleMeters, legMeters, legSeconds, travelMatrices, travelModelName } from '../../../shared/planning/travel.ts';

const santiago = { latitude: -33.4489, longitude: -70.6693 };
const oneDegreeNorth = { latitude: -32.4489, longitude: -70.6693 };

describe('the travel model (decisions 15)', () => {
  it('measures great-circle distance on the mean Earth radius, reported in whole metres', () => {
    expect(EARTH_RADIUS_METERS).toBe(6_371_008.8);
    // One degree along a meridian is an arc of pi/180 radians.
    expect(greatCircleMeters(santiago, oneDegreeNorth)).toBeCloseTo((Math.PI / 180) * 6_371_008.8, 6);
    expect(legMeters(santiago, oneDegreeNorth)).toBe(111_195);
    expect(legMeters(santiago, santiago)).toBe(0);
    expect(legMeters(oneDegreeNorth, santiago)).toBe(legMeters(santiago, oneDegreeNorth));
  });

  it('takes the time as distance over speed, rounded up to the whole second', () => {
    // 111,195.08 m at 36 km/h (10 m/s) is 11,119.5 s: 11,120.
    expect(legSeconds(santiago, oneDegreeNorth, 36)).toBe(11_120);
    // At 25 km/h: 16,012.09 s, up to 16,013 (never down to 16,012).
    expect(legSeconds(santiago, oneDegreeNorth, 25)).toBe(16_013);
    expect(legSeconds(santiago, santiago, 25)).toBe(0);
    // A metre is 0.144 s at 25 km/h: one whole second.
    expect(legSeconds(santiago, { latitude: santiago.latitude + 1 / 111_195.08, longitude: santiago.longitude }, 25)).toBe(1);
    expect(travelModelName(25)).toBe('haversine/25kmh/ceil-s');
  });

  it('is the distance tracking uses for its ETA', () => {
    expect(distanceKm(santiago, oneDegreeNorth)).toBe(greatCircleMeters(santiago, oneDegreeNorth) / 1000);
  });

  it('builds both matrices of a problem, depot first: symmetric, zero on the diagonal, each cell the leg functions', () => {
    const points = [santiago, oneDegreeNorth, { latitude: -33.5, longitude: -70.7 }, { latitude: -33.39, longitude: -70.55 }];
    const { distance, duration } = travelMatrices(points, 25);
    expect(distance).toHaveLength(16);
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) {
        expect(distance[i * 4 + j]).toBe(legMeters(points[i], points[j]));
        expect(duration[i * 4 + j]).toBe(legSeconds(points[i], points[j], 25));
      }
    }
  });

  it('builds 1,001 x 1,001 matrices (a depot and the most orders a preview takes)', () => {
    const points = Array.from({ length: 1001 }, (_, i) => ({ latitude: -33.3 - (i % 37) * 0.01, longitude: -70.5 - Math.floor(i / 37) * 0.01 }));
    const { distance, duration } = travelMatrices(points, 30);
    expect(distance).toHaveLength(1001 * 1001);
    expect(duration[1000 * 1001 + 3]).toBe(legSeconds(points[1000], points[3], 30));
  });
});

describe('times of the service date in the tenant’s zone', () => {
  it('counts seconds from local midnight and shows them with the offset of that moment', () => {
    const summer = dayClock('2026-11-23', 'America/Santiago');
    expect(summer.seconds('09:30')).toBe(34_200);
    expect(summer.dateTime(34_200)).toBe('2026-11-23T09:30:00-03:00');
    expect(summer.dateTime(34_200 + 59)).toBe('2026-11-23T09:30:59-03:00');
    expect(dayClock('2026-06-15', 'America/Santiago').dateTime(8 * 3600)).toBe('2026-06-15T08:00:00-04:00');
  });

  it('counts real seconds across a change of the clocks', () => {
    // Chile springs forward at 00:00 on 2026-09-06: the day starts at 01:00 -03:00, and 09:30 is 8.5 real hours on.
    const spring = dayClock('2026-09-06', 'America/Santiago');
    expect(spring.dateTime(0)).toBe('2026-09-06T01:00:00-03:00');
    expect(spring.seconds('09:30')).toBe(30_600);
    // Madrid springs forward at 02:00: 09:30 is 8.5 real hours after midnight, shown at +02:00.
    const madrid = dayClock('2026-03-29', 'Europe/Madrid');
    expect(madrid.seconds('09:30')).toBe(30_600);
    expect(madrid.dateTime(madrid.seconds('09:30'))).toBe('2026-03-29T09:30:00+02:00');
  });
});
