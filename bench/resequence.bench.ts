/**
 * `npm run bench:resequence [-- --routes N]`: the resequence's solving (decisions 17) on 300-stop
 * routes under way in Santiago, against the floor, the nearest-neighbour order from the vehicle,
 * judged the same way (stops served within a window first, then the end of the last service).
 * CPU time of this process (process.cpuUsage), the work bound as shipped, one run per route.
 *
 * Two kinds of route: no windows (the order is all travel), and 60 % of the stops with a 2-hour
 * window spread over the day from 09:00 to 19:00, the vehicle setting off at 10:00.
 */
import { decodeOrder, nearestNeighbour, resequence, seedOf, type ResequenceStop } from '../shared/planning/resequence.ts';

const STOPS = 300;
const SPEED = 25;
const START = { latitude: -33.45, longitude: -70.65 };

const generator = (seed: number) => {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) % 1_000_000) / 1_000_000;
};

const route = (seed: number, windows: boolean): ResequenceStop[] => {
  const next = generator(seed);
  return Array.from({ length: STOPS }, () => {
    // About 20 km by 20 km around the centre, as a day's urban route.
    const latitude = START.latitude + (next() - 0.5) * 0.18;
    const longitude = START.longitude + (next() - 0.5) * 0.21;
    const open = 9 * 3600 + Math.floor(next() * 8) * 3600;
    return { latitude, longitude, windows: windows && next() < 0.6 ? [[open, open + 7200] as const] : [], service: 120 };
  });
};

const cpuMs = <T>(work: () => T): [T, number] => {
  const before = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(before);
  return [value, (used.user + used.system) / 1000];
};

const argv = process.argv.slice(2);
const routes = argv.includes('--routes') ? Number(argv[argv.indexOf('--routes') + 1]) : 5;
// --steps: another work bound than the shipped one, to see what more work would buy.
const maxSteps = argv.includes('--steps') ? Number(argv[argv.indexOf('--steps') + 1]) : undefined;
const startTime = 10 * 3600;

for (const windows of [false, true]) {
  const rows: { ms: number; floorMs: number; late: number; floorLate: number; minutes: number; floorMinutes: number }[] = [];
  for (let r = 1; r <= routes; r++) {
    const stops = route(r * 7919 + (windows ? 1 : 0), windows);
    const problem = { start: START, startTime, stops, speedKmh: SPEED };
    const [answer, ms] = cpuMs(() => resequence({ ...problem, seed: seedOf(`bench-${r}|2026-11-29T13:00`), maxSteps }));
    const [floor, floorMs] = cpuMs(() => decodeOrder(problem, nearestNeighbour(problem)));
    rows.push({ ms, floorMs, late: answer.lateCount, floorLate: floor.lateCount, minutes: (answer.end - startTime) / 60, floorMinutes: (floor.end - startTime) / 60 });
  }
  console.log(`\n${STOPS} stops, ${windows ? '60 % with a 2-hour window' : 'no windows'} (${routes} routes)`);
  console.log('route | solve ms (CPU) | floor ms | late: ours / NN | minutes to serve all: ours / NN | ratio');
  for (const [i, row] of rows.entries()) {
    console.log(`${i + 1} | ${row.ms.toFixed(0)} | ${row.floorMs.toFixed(1)} | ${row.late} / ${row.floorLate} | ${row.minutes.toFixed(0)} / ${row.floorMinutes.toFixed(0)} | ${(row.minutes / row.floorMinutes).toFixed(3)}`);
  }
  const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`solve CPU ms: median ${ms[Math.floor(ms.length / 2)].toFixed(0)}, max ${ms[ms.length - 1].toFixed(0)} (limit 2,000); mean time ratio to NN ${mean(rows.map((r) => r.minutes / r.floorMinutes)).toFixed(3)}; late stops ${rows.reduce((a, r) => a + r.late, 0)} vs NN ${rows.reduce((a, r) => a + r.floorLate, 0)}`);
}
