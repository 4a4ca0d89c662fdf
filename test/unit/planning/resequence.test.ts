import { describe, expect, it } from 'vitest';
import { resequence, seedOf, type ResequenceProblem, type ResequenceStop } from '../../../shared/planning/resequence.ts';
import { legSeconds } from '../../../shared/planning/travel.ts';

// At 36 km/h a metre takes 0.1 s; 0.01 degrees of latitude is about 1,112 m, 112 s.
const SPEED = 36;
const origin = { latitude: -33.45, longitude: -70.65 };
const at = (north: number, east = 0) => ({ latitude: origin.latitude + north / 100, longitude: origin.longitude + east / 100 });
const stop = (north: number, east: number, windows: Array<[number, number]> = [], service = 60): ResequenceStop => ({ ...at(north, east), windows, service });
const problem = (stops: ResequenceStop[], extra: Partial<ResequenceProblem> = {}): ResequenceProblem => ({ start: origin, startTime: 36_000, stops, speedKmh: SPEED, seed: 7, ...extra });

/** A plain forward simulation of an answer, written apart from the solver. */
const check = (p: ResequenceProblem, answer: ReturnType<typeof resequence>) => {
  expect(answer.stops.map((s) => s.stop).sort((a, b) => a - b)).toEqual(p.stops.map((_, i) => i));
  let t = p.startTime;
  let here = p.start;
  let seenLate = false;
  for (const s of answer.stops) {
    const next = p.stops[s.stop];
    t += legSeconds(here, next, p.speedKmh);
    expect(s.arrival).toBe(t);
    if (s.late) {
      seenLate = true;
      // Late means no window of the stop is still open on arrival.
      expect(next.windows.length).toBeGreaterThan(0);
      expect(next.windows.every(([, to]) => to < s.arrival)).toBe(true);
      expect(s.serviceStart).toBe(s.arrival);
    } else {
      expect(seenLate, 'on-time stops come before late ones').toBe(false);
      const window = next.windows.find(([, to]) => s.arrival <= to);
      expect(s.serviceStart).toBe(next.windows.length === 0 ? s.arrival : Math.max(s.arrival, window![0]));
    }
    t = s.serviceStart + next.service;
    here = next;
  }
  expect(answer.end).toBe(t);
  expect(answer.lateCount).toBe(answer.stops.filter((s) => s.late).length);
};

/** Every order, each decoded by a plain simulation (on-time stops, then the late ones): the reference for the search. */
const bruteForce = (p: ResequenceProblem): { late: number; end: number } => {
  let best = { late: Infinity, end: Infinity };
  const judge = (perm: number[]) => {
    let t = p.startTime;
    let here = p.start;
    const late: number[] = [];
    for (const i of perm) {
      const next = p.stops[i];
      const arrival = t + legSeconds(here, next, p.speedKmh);
      const window = next.windows.find(([, to]) => arrival <= to);
      if (next.windows.length > 0 && !window) {
        late.push(i);
        continue;
      }
      t = Math.max(arrival, window?.[0] ?? arrival) + next.service;
      here = next;
    }
    for (const i of late) {
      t += legSeconds(here, p.stops[i], p.speedKmh) + p.stops[i].service;
      here = p.stops[i];
    }
    if (late.length < best.late || (late.length === best.late && t < best.end)) best = { late: late.length, end: t };
  };
  const visit = (prefix: number[], left: number[]) => {
    if (left.length === 0) return judge(prefix);
    for (const i of left) visit([...prefix, i], left.filter((x) => x !== i));
  };
  visit([], p.stops.map((_, i) => i));
  return best;
};

const randomStops = (count: number, seed: number): ResequenceStop[] => {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) % 10_000) / 10_000;
  return Array.from({ length: count }, () => {
    const open = 36_000 + Math.floor(next() * 7200);
    return stop(next() * 8 - 4, next() * 8 - 4, next() < 0.7 ? [[open, open + 1800 + Math.floor(next() * 3600)]] : [], 120);
  });
};

describe('resequencing a route on the road (decisions 17)', () => {
  it('serves first the stops whose windows can still be kept, the rest last and late', () => {
    // The near stop's window closed before the start: it can only be late. The far one closes soon.
    const p = problem([stop(1, 0, [[30_000, 35_000]]), stop(2, 0), stop(-3, 0, [[36_000, 36_400]])]);
    const answer = resequence(p);
    check(p, answer);
    expect(answer.stops.map((s) => [s.stop, s.late])).toEqual([
      [2, false],
      [1, false],
      [0, true],
    ]);
    expect(answer.exact).toBe(true);
  });

  it('keeps more windows rather than a shorter order', () => {
    // Going north first is shorter, but the south stop then misses its window.
    const p = problem([stop(1, 0), stop(2, 0), stop(-1, 0, [[36_000, 36_300]])]);
    const answer = resequence(p);
    check(p, answer);
    expect(answer.stops[0].stop).toBe(2);
    expect(answer.lateCount).toBe(0);
  });

  it('waits for a window to open where that is the only way to keep it', () => {
    const p = problem([stop(1, 0, [[39_600, 40_000]]), stop(2, 0)]);
    const answer = resequence(p);
    check(p, answer);
    expect(answer.stops.find((s) => s.stop === 0)!.serviceStart).toBe(39_600);
    expect(answer.lateCount).toBe(0);
  });

  it('uses the second window of a stop once the first has closed', () => {
    const p = problem([stop(1, 0, [[30_000, 33_000], [37_000, 38_000]])]);
    const answer = resequence(p);
    expect(answer.stops[0]).toMatchObject({ late: false, serviceStart: 37_000 });
  });

  it('finds with its local search the orders every permutation gives on small routes', () => {
    for (const seed of [1, 2, 3, 4]) {
      const p = problem(randomStops(7, seed));
      const searched = resequence({ ...p, exactUpTo: 0, maxSteps: 200_000 });
      expect(searched.exact).toBe(false);
      check(p, searched);
      const exact = resequence(p);
      expect(exact.exact).toBe(true);
      const reference = bruteForce(p);
      expect({ late: searched.lateCount, end: searched.end }, `instance ${seed}`).toEqual(reference);
      expect({ late: exact.lateCount, end: exact.end }).toEqual(reference);
    }
  });

  it('answers 300 stops within its work bound, no worse than nearest neighbour, the same every time', () => {
    const p = problem(randomStops(300, 11), { seed: seedOf('route|2026-11-29T10:15') });
    const first = resequence(p);
    check(p, first);
    expect(first.exact).toBe(false);
    expect(resequence(p).stops).toEqual(first.stops);
    const floor = resequence({ ...p, maxSteps: 0 });
    expect(first.lateCount).toBeLessThanOrEqual(floor.lateCount);
    if (first.lateCount === floor.lateCount) expect(first.end).toBeLessThanOrEqual(floor.end);
  });
});
