/**
 * `npm run bench:routing -- <folder or file> ... [--objective distance|vehicles] [--seconds N]
 * [--work W] [--seed S]`: solves each Solomon-format instance with the instance's fleet, checks
 * each answer with the independent checker and prints its gap to the best known (BKS.json beside
 * the instances). The budget is work (deterministic): `--work W`, or by default the work this
 * machine does in N seconds of one core (`--seconds`, default 10), with 4 N seconds of CPU as the
 * safety limit. Exits non-zero when any answer is infeasible or leaves a customer unserved.
 * `--city` hands over to city.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { workPerSecond } from '../../shared/planning/optimizer/budget.ts';
import { routeOptimizer } from '../../shared/planning/optimizer/index.ts';
import type { PlanningProblem } from '../../shared/planning/problem.ts';
import { checkSolution } from './checker.ts';
import { readSolomon, toProblem } from './solomon.ts';

interface BestKnown {
  best_known_cost: number;
  solved_with_vehicles?: number;
  /** The entry is a proven lower bound standing in for a best known that was below it (solomon50/README.md). */
  lower_bound?: boolean;
}

const usage = 'usage: npm run bench:routing -- <folder|file.txt> ... [--objective distance|vehicles] [--seconds N] [--work W] [--seed S] | --city ...';

/** Every instance named: a folder's .txt files, or a file itself; BKS.json beside each. */
function instancesOf(paths: string[]): Array<{ file: string; bks: Record<string, BestKnown> }> {
  const cache = new Map<string, Record<string, BestKnown>>();
  const bksOf = (folder: string) => {
    if (!cache.has(folder)) {
      const path = join(folder, 'BKS.json');
      cache.set(folder, existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, BestKnown>) : {});
    }
    return cache.get(folder)!;
  };
  return paths.flatMap((p) => {
    const path = resolve(p);
    if (statSync(path).isDirectory()) {
      return readdirSync(path)
        .filter((f) => f.endsWith('.txt'))
        .sort()
        .map((f) => ({ file: join(path, f), bks: bksOf(path) }));
    }
    return [{ file: path, bks: bksOf(dirname(path)) }];
  });
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--city')) {
    const city = (await import(new URL('./city.ts', import.meta.url).href)) as { runCity(argv: string[]): Promise<void> | void };
    await city.runCity(argv);
    return;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { objective: { type: 'string', default: 'distance' }, seconds: { type: 'string', default: '10' }, work: { type: 'string' }, seed: { type: 'string', default: '1' } },
  });
  const objective = values.objective as PlanningProblem['objective'];
  const seconds = Number(values.seconds);
  const seed = Number(values.seed);
  const fixedWork = values.work === undefined ? undefined : Number(values.work);
  if (positionals.length === 0 || !(seconds > 0) || (fixedWork !== undefined && !(fixedWork > 0)) || !['distance', 'vehicles'].includes(objective)) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  console.log(
    `objective ${objective}, seed ${seed}, work ${fixedWork ?? `per instance what ${seconds} s of this machine's core do at its size (workPerSecond)`}, safety limit ${4 * seconds} s of CPU`,
  );
  const gaps: number[] = [];
  const unknown: string[] = [];
  const failed: string[] = [];
  let routesOver = 0;
  let served = 0;
  let orders = 0;
  for (const { file, bks } of instancesOf(positionals)) {
    const instance = readSolomon(file);
    const problem = { ...toProblem(instance), objective };
    const work = fixedWork ?? Math.round(seconds * workPerSecond(problem.orders.length));
    const solution = await routeOptimizer.solve(problem, { seconds: 4 * seconds, seed, work });
    const report = checkSolution(problem, solution);
    // Vehicles: the hierarchical entry (fewest vehicles, then distance). Distance: the distance-only entry where there is one.
    const known = objective === 'vehicles' ? bks[instance.name] : (bks[`${instance.name}_distance`] ?? bks[instance.name]);
    const gap = known ? ((report.distance - known.best_known_cost) / known.best_known_cost) * 100 : NaN;
    const over = known?.solved_with_vehicles === undefined ? 0 : report.routes - known.solved_with_vehicles;
    if (known) {
      gaps.push(gap);
      routesOver += over;
    } else unknown.push(instance.name);
    const complete = report.feasible && report.served === problem.orders.length;
    if (!complete) failed.push(instance.name);
    served += report.served;
    orders += problem.orders.length;
    console.log(
      [
        instance.name.padEnd(8),
        `distance ${report.distance.toFixed(2).padStart(9)}`,
        `best known ${known ? known.best_known_cost.toFixed(2).padStart(8) : '       ?'}${known?.lower_bound ? ' (lower bound)' : ''}`,
        `gap ${known ? gap.toFixed(2).padStart(6) : '     ?'} %`,
        `routes ${String(report.routes).padStart(3)}${known?.solved_with_vehicles ? ` (best known ${known.solved_with_vehicles}, ${over >= 0 ? '+' : ''}${over})` : ''}`,
        `served ${report.served}/${problem.orders.length}`,
        report.feasible ? 'feasible' : `INFEASIBLE: ${report.violations.slice(0, 3).join('; ')}`,
        `iterations ${solution.stats.iterations}`,
        `work ${solution.stats.work}`,
        `cpu ${(solution.stats.elapsedMs / 1000).toFixed(1)} s`,
        `stopped by ${solution.stats.stoppedBy}`,
      ].join('  '),
    );
  }
  if (unknown.length > 0) console.log(`no best known entry (not in the average): ${unknown.join(', ')}`);
  if (failed.length > 0) {
    console.log(`FAILED (infeasible or a customer unserved): ${failed.join(', ')}`);
    process.exitCode = 1;
  }
  const average = gaps.reduce((s, g) => s + g, 0) / (gaps.length || 1);
  const worst = gaps.length ? Math.max(...gaps) : NaN;
  console.log(
    `average gap ${average.toFixed(2)} % over ${gaps.length} instances, routes ${routesOver >= 0 ? '+' : ''}${routesOver} over best known, worst ${worst.toFixed(2)} %, served ${orders ? ((served / orders) * 100).toFixed(2) : '0.00'} %`,
  );
}

await main(process.argv.slice(2));
