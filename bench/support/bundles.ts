import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { median } from './stats.ts';

/** The same esbuild settings the CDK stack's NodejsFunction uses for every function. */
const bundleOptions = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: 'node24',
  minify: true,
  sourcemap: false,
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'silent' as const,
};

export const bundle = async (entry: string, outDir: string, name: string): Promise<string> => {
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${name}.mjs`);
  await build({ ...bundleOptions, entryPoints: [resolve(entry)], outfile });
  return outfile;
};

/** A bundle that loads only the DynamoDB client: the least any of our functions can load. */
export const floorBundle = (outDir: string): Promise<string> => bundle('bench/support/floor-entry.ts', outDir, 'floor');

export const sizeOf = (file: string): number => statSync(file).size;

const importOnce = (file: string): number => {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, AWS_REGION: 'us-east-1' } });
  return Number(out.toString());
};

/**
 * Median time to import each bundle in a fresh Node process (a Lambda cold start's init, less
 * the runtime). The bundles take turns, so a busy moment of the machine hits all of them alike.
 */
export const coldImportMs = (files: string[], runs: number): number[] => {
  const samples = files.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) files.forEach((file, i) => samples[i].push(importOnce(file)));
  return samples.map(median);
};
