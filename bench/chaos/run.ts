import { runChaos } from './chaos.ts';

/**
 * `npm run chaos`: kills the local stack CHAOS_KILLS times (default 20) at moments drawn from
 * CHAOS_SEED (default: random, printed), then checks the invariants and prints a summary.
 * Exits 1 on any violation. CHAOS_VERBOSE=1 shows the stack's own output; CHAOS_KEEP=1 keeps the data.
 */
const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const kills = Number(process.env.CHAOS_KILLS ?? 20);
console.log(`chaos: ${kills} kills, seed ${seed} (CHAOS_SEED=${seed} repeats the kill moments)`);
// Ctrl-C ends the run through process.exit, whose handler takes the stack's process group along.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));
const summary = await runChaos({
  kills,
  seed,
  minRounds: Number(process.env.CHAOS_MIN_ROUNDS ?? 2),
  keepData: process.env.CHAOS_KEEP === '1',
  log: (line) => {
    if (!line.startsWith('  stack|') || process.env.CHAOS_VERBOSE === '1') console.log(line);
  },
});
const { violations, outstanding: _outstanding, ...figures } = summary;
console.log('\nchaos summary');
for (const [name, value] of Object.entries(figures)) console.log(`  ${name.padEnd(14)} ${value}`);
console.log(`  violations     ${violations.length}`);
for (const violation of violations) console.log(`    - ${violation}`);
process.exit(violations.length > 0 ? 1 : 0);
