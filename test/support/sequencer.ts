import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each slow file took in a whole run (docs/testing.md; measured under load, so only their
 * order matters). A file not listed is taken to be short, by its size, unless vitest's own cache
 * (node_modules/.vite) knows better.
 */
const known = JSON.parse(readFileSync(new URL('./file-seconds.json', import.meta.url), 'utf8')) as Record<string, number>;

/**
 * Longest first, so that the heavy files (the chaos and fuzz smoke runs, the 1,000-vehicle list,
 * the audit walk) start together at the beginning and the short ones fill the workers around
 * them, instead of one of them starting last and the run waiting on it alone. On a fresh clone
 * vitest has no durations and would keep the order of the glob.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = (spec: TestSpecification): number => {
      const path = relative(root, spec.moduleId);
      const listed = known[path];
      if (listed !== undefined) return listed;
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)?.duration;
      if (cached !== undefined) return cached / 1000;
      // Unknown: a second per 10 kB, below every listed file.
      try {
        return Math.min(statSync(spec.moduleId).size / 10_000, 1.9);
      } catch {
        return 0;
      }
    };
    const weights = new Map(files.map((spec) => [spec, estimate(spec)]));
    return [...files].sort((a, b) => weights.get(b)! - weights.get(a)!);
  }
}
