/**
 * `npx tsx bench/routing/rate.ts [distance|vehicles|duration]`: the optimizer alone on the 1,000
 * orders of the city day (city-day.ts, seed 1; haversine at 25 km/h) with 100 vehicles (the
 * fleet repeated: decisions 18's largest size), the default budget of a 60 s limit. Prints the
 * work rate this machine gives (what SLOWEST_WORK_PER_SECOND in budget.ts is priced at) and a hash
 * of the routes, the same on every run: `--city` measures the whole path, but needs DynamoDB Local,
 * which does not start on a machine this busy.
 */
import { cityFleet, cityOrders, DEPOT, SHIFT } from './city-day.ts';
import { travelMatrices } from '../../shared/planning/travel.ts';
import { defaultWork } from '../../shared/planning/optimizer/budget.ts';
import { solveProblem } from '../../shared/planning/optimizer/index.ts';
import type { PlanningProblem } from '../../shared/planning/problem.ts';
import { createHash } from 'node:crypto';

const objective = (process.argv[2] ?? 'vehicles') as PlanningProblem['objective'];
const orders = cityOrders(1000, 1, '2026-12-01');
const fleet = [...cityFleet(), ...cityFleet(), ...cityFleet().slice(0, 20)];
const sec = (hm: string) => Number(hm.slice(0, 2)) * 3600 + Number(hm.slice(3, 5)) * 60;
const points = [DEPOT.address, ...orders.map((o) => o.address)];
const { distance, duration } = travelMatrices(points, 25);
const problem: PlanningProblem = {
  distance,
  duration,
  objective,
  orders: orders.map((o) => ({ windows: o.timeWindows.map((w) => [sec(w.from), sec(w.to)] as const), service: o.serviceMinutes * 60, load: [o.load.weightKg, o.load.volumeM3], skills: [] })),
  vehicles: fleet.map((v) => ({ shiftStart: sec(SHIFT.shiftStart), shiftEnd: sec(SHIFT.shiftEnd), capacity: [v.capacity.weightKg, v.capacity.volumeM3], skills: [], maxStops: 1000 })),
};
const work = defaultWork(60);
const s = solveProblem(problem, { seconds: 600, seed: 1, work });
const hash = createHash('sha256').update(JSON.stringify(s.routes.map((r) => [r.vehicle, ...r.orders]))).digest('hex').slice(0, 16);
console.log(`${objective} vehicles ${fleet.length} work ${s.stats.work} cpu ${(s.stats.elapsedMs / 1000).toFixed(1)} s rate ${(s.stats.work / s.stats.elapsedMs / 1000).toFixed(2)} M/s routes ${s.routes.length} unassigned ${s.unassigned.length} hash ${hash}`);
