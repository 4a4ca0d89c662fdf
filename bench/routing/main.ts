/**
 * `npm run bench:routing -- <folder> [--seconds N] [--seed S]`: solves every Solomon-format
 * instance of the folder with the distance objective and the instance's fleet, on this one
 * process for N seconds of CPU each (default 10), checks each answer with the independent checker
 * and prints its gap to the best known (BKS.json beside the instances). `--city` hands over to
 * city.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { routeOptimizer } from '../../shared/planning/optimizer/index.ts';
import { checkSolution } from './checker.ts';
import { readSolomon, toProblem } from './solomon.ts';

interface BestKnown {
  best_known_cost: number;
  solved_with_vehicles?: number;
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--city')) {
    const city = (await import(new URL('./city.ts', import.meta.url).href)) as { runCity(argv: string[]): Promise<void> | void };
    await city.runCity(argv);
    return;
  }
  const seconds = Number(option(argv, '--seconds') ?? 10);
  const seed = Number(option(argv, '--seed') ?? 1);
  const folders = argv.filter((a, i) => !a.startsWith('--') && !['--seconds', '--seed'].includes(argv[i - 1]));
  if (folders.length === 0 || !(seconds > 0)) {
    console.error('usage: npm run bench:routing -- <folder> [<folder> ...] [--seconds N] [--seed S] | --city ...');
    process.exitCode = 2;
    return;
  }
  const gaps: number[] = [];
  let served = 0;
  let orders = 0;
  for (const folder of folders.map((f) => resolve(f))) {
    const bksPath = join(folder, 'BKS.json');
    const bks = existsSync(bksPath) ? (JSON.parse(readFileSync(bksPath, 'utf8')) as Record<string, BestKnown>) : {};
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.txt')).sort()) {
      const instance = readSolomon(join(folder, file));
      const problem = toProblem(instance);
      const solution = await routeOptimizer.solve(problem, { seconds, seed });
      const report = checkSolution(problem, solution);
      const known = bks[`${instance.name}_distance`] ?? bks[instance.name];
      const gap = known ? ((report.distance - known.best_known_cost) / known.best_known_cost) * 100 : NaN;
      if (Number.isFinite(gap)) gaps.push(gap);
      served += report.served;
      orders += problem.orders.length;
      console.log(
        [
          instance.name.padEnd(8),
          `distance ${report.distance.toFixed(2).padStart(9)}`,
          `best known ${known ? known.best_known_cost.toFixed(2).padStart(8) : '       ?'}`,
          `gap ${Number.isFinite(gap) ? gap.toFixed(2).padStart(6) : '     ?'} %`,
          `routes ${String(report.routes).padStart(3)}${known?.solved_with_vehicles ? ` (best known ${known.solved_with_vehicles})` : ''}`,
          `served ${report.served}/${problem.orders.length}`,
          report.feasible ? 'feasible' : `INFEASIBLE: ${report.violations.slice(0, 3).join('; ')}`,
          `iterations ${solution.stats.iterations}`,
        ].join('  '),
      );
    }
  }
  const average = gaps.reduce((s, g) => s + g, 0) / (gaps.length || 1);
  const worst = gaps.length ? Math.max(...gaps) : NaN;
  console.log(`average gap ${average.toFixed(2)} % over ${gaps.length} instances, worst ${worst.toFixed(2)} %, served ${orders ? ((served / orders) * 100).toFixed(2) : '0.00'} %`);
}

function option(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

await main(process.argv.slice(2));
