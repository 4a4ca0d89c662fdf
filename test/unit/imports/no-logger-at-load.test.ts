import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Files a module's static imports load with it (type-only imports are gone once esbuild reads them). */
const loadedWith = async (entry: string): Promise<Set<string>> => {
  const { metafile } = await build({ entryPoints: [entry], absWorkingDir: root, bundle: true, write: false, platform: 'node', format: 'esm', packages: 'external', metafile: true, outdir: 'unused', logLevel: 'silent' });
  const inputs = (metafile as Metafile).inputs;
  const seen = new Set<string>();
  const next = [entry];
  while (next.length > 0) {
    const file = next.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of inputs[file]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) next.push(i.path);
  }
  return seen;
};

/**
 * The operations' list (functions/index.ts) is loaded by the CDK stack, the OpenAPI writer and the
 * local stack before it sets LOG_LEVEL. A logger built then logs at the wrong level, to a console
 * made before a test's log capture (it broke provider.test's log checks once): operations import
 * the logger where they log, and handlers, which load it at module scope, stay out of this graph.
 */
describe('the operations list', () => {
  it('loads no logger with it', async () => {
    const loaded = await loadedWith('functions/index.ts');
    expect(loaded.size).toBeGreaterThan(100);
    expect([...loaded].filter((file) => file === 'shared/logger.ts')).toEqual([]);
  });

  it('(the check sees a logger that a handler loads)', async () => {
    expect((await loadedWith('functions/records/imports/worker-handler.ts')).has('shared/logger.ts')).toBe(true);
  });
});
